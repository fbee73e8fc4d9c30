import Testing
import TokKitAudio

@Suite struct NoiseAudioDeviceTests {
    @Test func capturesBoundedNoiseOnePeriodEvery10ms() throws {
        let device = NoiseAudioDevice(amplitude: 1_000)
        let bus = RecordingBus(captureLimit: 480 * 20)
        device.setAudioBus(bus)
        try device.initializeCapture()
        try expectClockPaced(periods: 20, start: { try device.startCapture() }, stop: { device.stopCapture() },
                             count: { bus.captureCalls })
        let got = bus.captured
        #expect(got.count == 480 * 20)
        #expect(got.allSatisfy { (-1_000...1_000).contains($0) })
        // White noise: spread over the range, mean near zero, consecutive periods different.
        #expect(Set(got).count > 1_000)
        let mean = Double(got.reduce(0) { $0 + Int($1) }) / Double(got.count)
        #expect(abs(mean) < 50)
        #expect(Array(got[0..<480]) != Array(got[480..<960]))
        #expect(got.contains { $0 > 900 } && got.contains { $0 < -900 })
    }

    @Test func sameSeedSameNoise() throws {
        func firstPeriods(seed: UInt32) throws -> [Int16] {
            let device = NoiseAudioDevice(format: .stereo, seed: seed)
            let bus = RecordingBus(captureLimit: 960 * 3)
            device.setAudioBus(bus)
            try device.initializeCapture()
            try device.startCapture()
            #expect(poll { bus.captured.count >= 960 * 3 })
            device.stopCapture()
            return bus.captured
        }
        #expect(try firstPeriods(seed: 7) == firstPeriods(seed: 7))
        #expect(try firstPeriods(seed: 7) != firstPeriods(seed: 8))
    }

    @Test func renderDiscardsOnePeriodEvery10ms() throws {
        let device = NoiseAudioDevice()
        let bus = RecordingBus(renderSource: pattern(count: 4800))
        device.setAudioBus(bus)
        #expect(throws: AudioDeviceError.notInitialized) { try device.startRendering() }
        try device.initializeRendering()
        try expectClockPaced(periods: 20, start: { try device.startRendering() }, stop: { device.stopRendering() },
                             count: { bus.renderCalls })
    }
}
