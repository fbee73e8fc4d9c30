import Testing
@testable import TokKitAudio

/// The real alsa-lib path without a sound card: ALSA's `null` and `file` plugins defined in a private configuration.
@Suite struct ALSAAudioDeviceTests {
    /// PCMs: `n` (null), `out` (playback into out.raw), `cap` (capture from in.raw), `mono` (1 channel only).
    static func configuration(_ dir: TemporaryDirectory) -> String {
        """
        pcm.n { type null }
        pcm.out { type file slave.pcm "n" file "\(dir.file("out.raw"))" format "raw" }
        pcm.cap { type file slave.pcm "n" file "\(dir.file("copy.raw"))" infile "\(dir.file("in.raw"))" format "raw" }
        pcm.mono { type multi slaves.a { pcm "n" channels 1 } bindings.0 { slave a channel 0 } }
        """
    }

    static func device(
        _ dir: TemporaryDirectory, capture: String? = nil, render: String? = nil,
        format: AudioFormat = .voice, pacing: AudioPacing = .clock
    ) throws -> ALSAAudioDevice {
        try ALSAAudioDevice(
            configuration: configuration(dir),
            options: .init(captureDevice: capture, renderDevice: render, captureFormat: format, renderFormat: format,
                           pacing: pacing))
    }

    @Test(arguments: [AudioFormat.voice, .stereo], [AudioPacing.clock, .device])
    func playbackArrivesByteExactInTheOutputFile(format: AudioFormat, pacing: AudioPacing) throws {
        let dir = TemporaryDirectory()
        let periods = 12
        let source = pattern(count: periods * format.samplesPerPeriod)
        let bus = RecordingBus(renderSource: source, channels: format.numberOfChannels)
        let device = try Self.device(dir, render: "out", format: format, pacing: pacing)
        device.setAudioBus(bus)
        try device.initializeRendering()
        try device.startRendering()
        #expect(device.isRendering)
        #expect(poll { bus.renderCalls >= periods + 2 })
        device.stopRendering()
        #expect(!device.isRendering)

        let written = try #require(readBytes(dir.file("out.raw")))
        // Every period read from the bus reached the file (drop flushes the plugin), nothing else did.
        #expect(written.count == bus.renderCalls * format.bytesPerPeriod)
        #expect(device.statistics.renderedPeriods == bus.renderCalls)
        #expect(Array(written.prefix(source.count * 2)) == bytes(of: source))
        #expect(written.dropFirst(source.count * 2).allSatisfy { $0 == 0 })
        #expect(device.renderFailure == nil)
    }

    @Test(arguments: [AudioFormat.voice, .stereo], [AudioPacing.clock, .device])
    func captureReadsTheInputFileBackExactly(format: AudioFormat, pacing: AudioPacing) throws {
        let dir = TemporaryDirectory()
        let periods = 10
        let input = pattern(count: periods * format.samplesPerPeriod, seed: 5)
        writeBytes(dir.file("in.raw"), bytes(of: input))
        // Three periods past the end of the input: the plugin has nothing more, so they must be silence.
        let bus = RecordingBus(captureLimit: (periods + 3) * format.samplesPerPeriod)
        let device = try Self.device(dir, capture: "cap", format: format, pacing: pacing)
        device.setAudioBus(bus)
        try device.initializeCapture()
        try device.startCapture()
        #expect(device.isCapturing)
        #expect(poll { bus.captured.count >= bus.captureLimit })
        device.stopCapture()

        let got = bus.captured
        #expect(got.count == bus.captureLimit)
        #expect(Array(got.prefix(input.count)) == input)
        #expect(got.dropFirst(input.count).allSatisfy { $0 == 0 })
        #expect(device.statistics.capturedPeriods == bus.captureCalls)
        #expect(device.captureFailure == nil)
    }

    @Test func clockPacingMovesOnePeriodEvery10ms() throws {
        let dir = TemporaryDirectory()
        let device = try Self.device(dir, capture: "n", render: "n", pacing: .clock)
        try device.initializeCapture()
        try device.initializeRendering()
        try expectClockPaced(periods: 25, start: { try device.startCapture() }, stop: { device.stopCapture() },
                             count: { device.statistics.capturedPeriods })
        try expectClockPaced(periods: 25, start: { try device.startRendering() }, stop: { device.stopRendering() },
                             count: { device.statistics.renderedPeriods })
    }

    @Test func missingPCMIsNoSuchDevice() throws {
        let dir = TemporaryDirectory()
        let local = try Self.device(dir, capture: "nosuch", render: "nosuch")
        #expect(throws: AudioDeviceError.noSuchDevice("nosuch")) { try local.initializeCapture() }
        #expect(throws: AudioDeviceError.noSuchDevice("nosuch")) { try local.initializeRendering() }
        #expect(!local.isCaptureInitialized && !local.isRenderingInitialized)

        // Through the system configuration too.
        let system = ALSAAudioDevice(options: .init(captureDevice: "tokkit_no_such_pcm", renderDevice: nil))
        #expect(throws: AudioDeviceError.noSuchDevice("tokkit_no_such_pcm")) { try system.initializeCapture() }
        #expect(!system.isRenderingAvailable)
        #expect(throws: AudioDeviceError.noSuchDevice("(no playback device)")) { try system.initializeRendering() }
    }

    @Test func formatThePCMCannotDoIsUnsupported() throws {
        let dir = TemporaryDirectory()
        // Rejected by alsa-lib: the `mono` PCM has exactly one channel.
        let stereo = try Self.device(dir, capture: "mono", render: "mono", format: .stereo)
        #expect(throws: AudioDeviceError.unsupportedFormat(.stereo)) { try stereo.initializeCapture() }
        #expect(throws: AudioDeviceError.unsupportedFormat(.stereo)) { try stereo.initializeRendering() }
        let mono = try Self.device(dir, capture: "mono", render: "mono", format: .voice)
        try mono.initializeCapture()
        try mono.initializeRendering()

        // Rejected before alsa-lib: not a format TokKit devices use.
        let odd = AudioFormat(sampleRate: 44_100, numberOfChannels: 3)
        let three = try Self.device(dir, capture: "n", format: odd)
        #expect(throws: AudioDeviceError.unsupportedFormat(odd)) { try three.initializeCapture() }
    }

    @Test func startBeforeInitializeIsNotInitialized() throws {
        let dir = TemporaryDirectory()
        let device = try Self.device(dir, capture: "n", render: "n")
        #expect(throws: AudioDeviceError.notInitialized) { try device.startCapture() }
        #expect(throws: AudioDeviceError.notInitialized) { try device.startRendering() }
        #expect(!device.isCapturing && !device.isRendering)
    }

    @Test func stopsRestartsAndReleases() throws {
        let dir = TemporaryDirectory()
        let device = try Self.device(dir, capture: "n", render: nil)
        try device.initializeCapture()
        for round in 1...3 {
            try device.startCapture()
            #expect(poll { device.statistics.capturedPeriods >= 3 * round })
            device.stopCapture()
            #expect(!device.isCapturing)
            #expect(device.isCaptureInitialized)
        }
        device.releaseCapture()
        #expect(!device.isCaptureInitialized)
        #expect(throws: AudioDeviceError.notInitialized) { try device.startCapture() }
        try device.initializeCapture()
        try device.startCapture()
        #expect(device.isCapturing)
        #expect(device.estimatedCaptureDelay >= .zero)
    }
}
