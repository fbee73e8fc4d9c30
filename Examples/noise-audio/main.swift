// noise-audio: white noise from a NoiseAudioDevice, through a LoopbackAudioBus, recorded by a FileAudioDevice.
//
//     swift run noise-audio [seconds] [output.wav]      (defaults: 3 s, noise.wav)
//
// Shows the AudioDevice contract end to end: one bus per device, initialize → start → stop per side, every side
// on its own 10 ms clock thread, and a WAV file complete when rendering stops.
#if canImport(Glibc)
import Glibc
#endif
import ExampleHelp
import TokKitAudio

let usage = ExampleUsage("""
    usage: noise-audio [seconds 1-3600] [output.wav]      (defaults: 3 s, noise.wav)

    Records white noise from a noise "microphone" through a loopback bus into a WAV file.

      -h, --help     print this help and exit
    """)
usage.answerHelp()

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count <= 2, let seconds = Int(arguments.first ?? "3"), (1...3_600).contains(seconds) else {
    print(usage.text)
    exit(2)
}
let output = arguments.dropFirst().first ?? "noise.wav"

do throws(AudioDeviceError) {
    let bus = LoopbackAudioBus(format: .voice, capacity: .milliseconds(100))
    let microphone = NoiseAudioDevice(format: .voice)
    let recorder = try FileAudioDevice(renderFile: output, renderFormat: .voice)
    microphone.setAudioBus(bus)
    recorder.setAudioBus(bus)

    try microphone.initializeCapture()
    try recorder.initializeRendering()
    try microphone.startCapture()
    try recorder.startRendering()

    // The example's main thread just waits; the devices work on their own threads.
    var request = timespec(tv_sec: seconds, tv_nsec: 0)
    var rest = timespec()
    while nanosleep(&request, &rest) != 0 && errno == EINTR { request = rest }

    microphone.stopCapture()
    recorder.stopRendering()

    let captured = microphone.statistics.capturedPeriods
    let rendered = recorder.statistics.renderedPeriods
    print("""
        \(output): \(recorder.renderedFrames) frames (\(Double(recorder.renderedFrames) / 48_000) s) of 48 kHz mono
        periods captured \(captured), rendered \(rendered); \
        loopback dropped \(bus.droppedFrames) frames, filled \(bus.missingFrames) with silence
        """)
} catch {
    print("noise-audio: \(error)")
    exit(1)
}
