// custom-audio-driver: the tutorial's "custom audio driver" chapter. An AudioDevice of our own replaces the
// sound card: its capture side plays a 440 Hz tone into the session (instead of a microphone), its render side
// writes what the session plays (the mixed audio of the subscribed streams) to a WAV file (instead of speakers).
//
//     swift run custom-audio-driver [--out FILE.wav] [--server URL] [--seconds N]
//
// The device contract (Docs/Audio.md): TokKit hands the device an AudioBus; the device calls
// `writeCaptureData` with 10 ms of 48 kHz Int16 samples per period from its capture thread, and
// `readRenderData` for 10 ms to play from its render thread. Each side paces itself: here a PeriodicThread
// each; a real driver would block on its hardware instead.
import ExampleHelp
import ExampleSupport
import Foundation
import Synchronization
import TokKit
import TokKitAudio
import TokKitMedia

/// Tone in, WAV file out, each side on its own 10 ms clock.
final class ToneAndFileAudioDevice: AudioDevice {
    let captureFormat = AudioFormat.voice
    let renderFormat = AudioFormat.voice
    let estimatedCaptureDelay = Duration.milliseconds(10)
    let estimatedRenderDelay = Duration.milliseconds(10)
    let isCaptureAvailable = true
    let isRenderingAvailable = true

    private let path: String
    private let frequency: Double
    private struct State {
        var bus: (any AudioBus)?
        var captureInitialized = false, renderInitialized = false
        var captureThread: PeriodicThread?, renderThread: PeriodicThread?
        var writer: WAVWriter?
        var phase = 0.0
        var tone = [Int16](repeating: 0, count: AudioFormat.voice.samplesPerPeriod)
        var played = [Int16](repeating: 0, count: AudioFormat.voice.samplesPerPeriod)
        var heardPeriods = 0
    }
    private let state = Mutex(State())

    init(path: String, frequency: Double = 440) {
        self.path = path
        self.frequency = frequency
    }

    /// 10 ms periods in which the session played real audio (not silence).
    var heardPeriods: Int { state.withLock { $0.heardPeriods } }

    func setAudioBus(_ bus: (any AudioBus)?) { state.withLock { $0.bus = bus } }

    // MARK: Capture: a sine tone

    var isCaptureInitialized: Bool { state.withLock { $0.captureInitialized } }
    var isCapturing: Bool { state.withLock { $0.captureThread != nil } }

    func initializeCapture() throws(AudioDeviceError) { state.withLock { $0.captureInitialized = true } }

    func startCapture() throws(AudioDeviceError) {
        guard isCaptureInitialized else { throw .notInitialized }
        let step = 2 * Double.pi * frequency / Double(captureFormat.sampleRate)
        let thread = PeriodicThread(name: "tone-capture", interval: AudioFormat.period) { [weak self] in
            guard let self else { return false }
            // The bus copies the samples before returning; the buffer is reused every period.
            state.withLock { s in
                for i in s.tone.indices {
                    s.tone[i] = Int16(8_000 * sin(s.phase))
                    s.phase += step
                }
                s.phase = s.phase.truncatingRemainder(dividingBy: 2 * .pi)
                let bus = s.bus
                s.tone.withUnsafeBufferPointer { bus?.writeCaptureData($0) }
            }
            return true
        }
        state.withLock { $0.captureThread = thread }
    }

    func stopCapture() {
        state.withLock { s in defer { s.captureThread = nil }; return s.captureThread }?.stop()
    }

    // MARK: Render: a WAV file

    var isRenderingInitialized: Bool { state.withLock { $0.renderInitialized } }
    var isRendering: Bool { state.withLock { $0.renderThread != nil } }

    func initializeRendering() throws(AudioDeviceError) {
        let (path, format) = (path, renderFormat)
        // Made under the lock that keeps it: a WAVWriter belongs to one thread (or one lock) at a time.
        try state.withLock { (s: inout State) throws(AudioDeviceError) in
            do throws(WAVError) {
                s.writer = try WAVWriter(path: path, format: format)
            } catch {
                throw .invalidFile(path: path, reason: "\(error)")
            }
            s.renderInitialized = true
        }
    }

    func startRendering() throws(AudioDeviceError) {
        guard isRenderingInitialized else { throw .notInitialized }
        let thread = PeriodicThread(name: "file-render", interval: AudioFormat.period) { [weak self] in
            guard let self else { return false }
            state.withLock { s in
                let bus = s.bus, writer = s.writer
                s.played.withUnsafeMutableBufferPointer { buffer in
                    let real = bus?.readRenderData(buffer) ?? 0
                    if real > 0 { s.heardPeriods += 1 }
                    try? writer?.write(UnsafeBufferPointer(buffer))
                }
            }
            return true
        }
        state.withLock { $0.renderThread = thread }
    }

    func stopRendering() {
        state.withLock { s in defer { s.renderThread = nil }; return s.renderThread }?.stop()
        try? state.withLock { $0.writer }?.close()
    }
}

ExampleUsage("""
    usage: custom-audio-driver [--out FILE.wav] [--server URL] [--seconds N]

    Replaces the sound card with an audio device of its own: a 440 Hz tone goes into the session, what the
    session plays comes out into a WAV file.

      --out FILE     the WAV file of what was played (default custom-audio-driver.wav)
    \(ExampleSession.optionsHelp)
    """).answerHelp()

let output = ExampleSession.option("--out") ?? "custom-audio-driver.wav"
let device = ToneAndFileAudioDevice(path: output)
// The device must be set before the first session starts audio.
try AudioDeviceManager.setAudioDevice(device)

let seconds = ExampleSession.seconds()
await ExampleSession.run("custom-audio-driver") { example in
    let session = example.session
    let publisher = Publisher(name: "tone", publishVideo: false)
    try await session.publish(publisher)
    let stream = try await example.streamToSubscribe(besides: publisher)
    let subscriber = Subscriber(stream: stream)
    try await session.subscribe(subscriber)
    try await Task.sleep(for: .seconds(seconds))
    try await session.unsubscribe(subscriber)
    try await session.unpublish(publisher)
}
print("played \(device.heardPeriods) periods of received audio (\(device.heardPeriods * 10) ms) into \(output)")
