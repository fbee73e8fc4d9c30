import Testing
import TokKitAudio

@Suite struct NullAudioDeviceTests {
    @Test func capturesSilenceOnePeriodEvery10ms() throws {
        let device = NullAudioDevice()
        let bus = RecordingBus(captureLimit: 480 * 30)
        device.setAudioBus(bus)
        try device.initializeCapture()
        try expectClockPaced(periods: 30, start: { try device.startCapture() }, stop: { device.stopCapture() },
                             count: { bus.captureCalls })
        #expect(bus.captured.count == 480 * 30)
        #expect(bus.captured.allSatisfy { $0 == 0 })
        #expect(device.statistics.capturedPeriods == bus.captureCalls)
    }

    @Test func rendersByReadingTheBusEvery10ms() throws {
        let device = NullAudioDevice(renderFormat: .stereo)
        let bus = RecordingBus(renderSource: pattern(count: 960 * 5), channels: 2)
        device.setAudioBus(bus)
        try device.initializeRendering()
        try expectClockPaced(periods: 30, start: { try device.startRendering() }, stop: { device.stopRendering() },
                             count: { bus.renderCalls })
        #expect(device.statistics.renderedPeriods == bus.renderCalls)
        #expect(device.estimatedRenderDelay == .zero)
    }

    @Test func lifecycleErrors() throws {
        let device = NullAudioDevice()
        #expect(device.isCaptureAvailable && device.isRenderingAvailable)
        #expect(throws: AudioDeviceError.notInitialized) { try device.startCapture() }
        #expect(throws: AudioDeviceError.notInitialized) { try device.startRendering() }
        let bad = AudioFormat(sampleRate: 22_050)
        #expect(throws: AudioDeviceError.unsupportedFormat(bad)) {
            try NullAudioDevice(captureFormat: bad).initializeCapture()
        }
        // Runs without a bus.
        try device.initializeCapture()
        try device.startCapture()
        #expect(poll { device.statistics.capturedPeriods >= 3 })
        #expect(device.isCapturing)
        device.stopCapture()
        #expect(!device.isCapturing)
    }
}
