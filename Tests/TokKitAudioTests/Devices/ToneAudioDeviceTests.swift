import Foundation
import Synchronization
import Testing
import TokKitAudio

@Suite struct ToneAudioDeviceTests {
    /// Power of `frequency` in `samples` (Goertzel), normalised by the length.
    func power(_ samples: [Int16], at frequency: Double, rate: Double = 48_000) -> Double {
        let k = 2 * cos(2 * .pi * frequency / rate)
        var (s1, s2) = (0.0, 0.0)
        for x in samples {
            let s0 = Double(x) + k * s1 - s2
            (s2, s1) = (s1, s0)
        }
        return (s1 * s1 + s2 * s2 - k * s1 * s2) / Double(samples.count * samples.count)
    }

    @Test func capturesAContinuousSineOnePeriodEvery10ms() throws {
        let device = ToneAudioDevice(frequency: 1_000, amplitude: 4_000)
        let bus = RecordingBus(captureLimit: 480 * 20)
        device.setAudioBus(bus)
        try device.initializeCapture()
        try expectClockPaced(periods: 20, start: { try device.startCapture() }, stop: { device.stopCapture() },
                             count: { bus.captureCalls })
        let got = bus.captured
        #expect(got.count == 480 * 20)
        #expect(got.allSatisfy { (-4_000...4_000).contains($0) })
        #expect(got.max()! > 3_900 && got.min()! < -3_900)
        // 1 kHz dominates its neighbours by far, and the phase runs on across period boundaries: 2000 zero
        // crossings a second, so 400 in 0.2 s (give or take the ends).
        let tone = power(got, at: 1_000)
        #expect(tone > 1_000 * power(got, at: 700) && tone > 1_000 * power(got, at: 1_300))
        let crossings = zip(got, got.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        #expect((398...402).contains(crossings))
    }

    @Test func stereoCarriesTheSameToneOnBothChannels() throws {
        let device = ToneAudioDevice(frequency: 440, format: .stereo)
        let bus = RecordingBus(captureLimit: 960 * 3)
        device.setAudioBus(bus)
        try device.initializeCapture()
        try device.startCapture()
        #expect(poll { bus.captured.count >= 960 * 3 })
        device.stopCapture()
        let got = bus.captured
        #expect(stride(from: 0, to: got.count - 1, by: 2).allSatisfy { got[$0] == got[$0 + 1] })
        #expect(Set(got).count > 100)
    }

    @Test func rendersWhatTheBusOffersIntoAWAVFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("heard.wav")
        let offered = pattern(count: 4_800)
        let device = ToneAudioDevice(renderFile: path)
        let bus = RecordingBus(renderSource: offered)
        device.setAudioBus(bus)
        #expect(throws: AudioDeviceError.notInitialized) { try device.startRendering() }
        try device.initializeRendering()
        try device.startRendering()
        #expect(poll { device.renderedFrames >= 4_800 })
        device.stopRendering()
        let reader = try WAVReader(path: path)
        var samples = [Int16](repeating: 0, count: 4_800)
        let read = try samples.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
        #expect(read == 4_800)
        #expect(samples == offered)
    }

    @Test func handsEveryPlayedPeriodToItsSinkAfterTheFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("heard.wav")
        let offered = pattern(count: 4_800)
        let heard = Mutex<[Int16]>([])
        let periods = Mutex<Set<Int>>([])
        let device = ToneAudioDevice(renderFile: path, renderSink: { period in
            heard.withLock { $0 += period }
            periods.withLock { _ = $0.insert(period.count) }
        })
        #expect(device.isRenderingAvailable)
        device.setAudioBus(RecordingBus(renderSource: offered))
        try device.initializeRendering()
        try device.startRendering()
        #expect(poll { heard.withLock { $0.count } >= 4_800 })
        device.stopRendering()
        #expect(Array(heard.withLock { $0 }.prefix(4_800)) == offered)
        #expect(periods.withLock { $0 } == [480], "one call per 10 ms period of 48 kHz mono")
        #expect(device.renderedFrames == heard.withLock { $0.count }, "the file got the same periods")
    }

    @Test func aSinkAloneMakesRenderingAvailable() throws {
        let calls = Mutex(0)
        let device = ToneAudioDevice(renderSink: { _ in calls.withLock { $0 += 1 } })
        #expect(device.isRenderingAvailable && device.renderFile == nil)
        device.setAudioBus(RecordingBus(renderSource: pattern(count: 480)))
        try device.initializeRendering()
        try device.startRendering()
        #expect(poll { calls.withLock { $0 } >= 3 })
        device.stopRendering()
        #expect(device.renderedFrames == 0 && device.statistics.renderedPeriods >= 3)
    }

    @Test func withoutARenderFileRenderingIsNotAvailable() {
        let device = ToneAudioDevice()
        #expect(!device.isRenderingAvailable)
        #expect(throws: AudioDeviceError.self) { try device.initializeRendering() }
    }
}
