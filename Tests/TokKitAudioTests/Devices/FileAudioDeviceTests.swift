import Testing
import TokKitAudio

@Suite struct FileAudioDeviceTests {
    static func makeWAV(_ path: String, _ samples: [Int16], format: AudioFormat) throws {
        let writer = try WAVWriter(path: path, format: format)
        try samples.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
    }

    @Test(arguments: [AudioFormat.voice, .stereo, AudioFormat(sampleRate: 16_000)])
    func capturesTheFileThenSilence(format: AudioFormat) throws {
        let dir = TemporaryDirectory()
        let input = pattern(count: format.samplesPerPeriod * 7 + format.numberOfChannels * 5)   // 7 periods + 5 frames
        try Self.makeWAV(dir.file("in.wav"), input, format: format)
        let device = try FileAudioDevice(captureFile: dir.file("in.wav"))
        #expect(device.captureFormat == format)
        #expect(!device.isRenderingAvailable)
        let total = format.samplesPerPeriod * 10
        let bus = RecordingBus(captureLimit: total)
        device.setAudioBus(bus)
        try device.initializeCapture()
        try expectClockPaced(periods: 10, start: { try device.startCapture() }, stop: { device.stopCapture() },
                             count: { bus.captureCalls })
        let got = bus.captured
        #expect(got.count == total)
        #expect(Array(got.prefix(input.count)) == input)
        #expect(got.dropFirst(input.count).allSatisfy { $0 == 0 })
        #expect(device.isCaptureFileFinished)
    }

    @Test func loopsSeamlessly() throws {
        let dir = TemporaryDirectory()
        let input = pattern(count: 700)   // not a whole period: the loop joins inside periods
        try Self.makeWAV(dir.file("loop.wav"), input, format: .voice)
        let device = try FileAudioDevice(captureFile: dir.file("loop.wav"), loop: true)
        let bus = RecordingBus(captureLimit: 480 * 8)
        device.setAudioBus(bus)
        try device.initializeCapture()
        try device.startCapture()
        #expect(poll { bus.captured.count >= 480 * 8 })
        device.stopCapture()
        let got = bus.captured
        #expect(got == (0..<got.count).map { input[$0 % input.count] })
        #expect(!device.isCaptureFileFinished)
    }

    @Test func rendersIntoAValidWAVFixedUpOnEveryStop() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("out.wav")
        let source = pattern(count: 960 * 6, seed: 3)
        let bus = RecordingBus(renderSource: source, channels: 2)
        let device = try FileAudioDevice(renderFile: path, renderFormat: .stereo)
        #expect(!device.isCaptureAvailable)
        device.setAudioBus(bus)
        try device.initializeRendering()
        try expectClockPaced(periods: 8, start: { try device.startRendering() }, stop: { device.stopRendering() },
                             count: { bus.renderCalls })
        let first = try WAVReader(path: path)
        #expect(first.format == .stereo)
        #expect(first.frameCount == bus.renderCalls * 480)
        #expect(device.renderedFrames == first.frameCount)
        var back = [Int16](repeating: 0, count: first.frameCount * 2)
        #expect(try back.withUnsafeMutableBufferPointer { try first.read(into: $0) } == first.frameCount)
        #expect(Array(back.prefix(source.count)) == source)
        #expect(back.dropFirst(source.count).allSatisfy { $0 == 0 })

        // A second run appends; the header is fixed up again.
        let before = bus.renderCalls
        try device.startRendering()
        #expect(poll { bus.renderCalls >= before + 3 })
        device.stopRendering()
        #expect(try WAVReader(path: path).frameCount == bus.renderCalls * 480)
    }

    @Test func fileProblemsAreTypedErrors() throws {
        let dir = TemporaryDirectory()
        #expect {
            _ = try FileAudioDevice(captureFile: dir.file("missing.wav"))
        } throws: { error in
            guard case let AudioDeviceError.invalidFile(path, reason) = error else { return false }
            return path == dir.file("missing.wav") && reason.contains("no such file")
        }
        writeBytes(dir.file("text.wav"), Array("hello, not a wav file at all".utf8))
        #expect(throws: AudioDeviceError.invalidFile(path: dir.file("text.wav"), reason: "not a RIFF/WAVE file")) {
            _ = try FileAudioDevice(captureFile: dir.file("text.wav"))
        }
        // A valid WAV whose rate is not whole 10 ms periods: the file opens, capture refuses the format.
        let odd = AudioFormat(sampleRate: 22_050)
        try Self.makeWAV(dir.file("odd.wav"), pattern(count: 100), format: odd)
        let device = try FileAudioDevice(captureFile: dir.file("odd.wav"))
        #expect(throws: AudioDeviceError.unsupportedFormat(odd)) { try device.initializeCapture() }
        // Rendering into a directory that does not exist.
        let nowhere = try FileAudioDevice(renderFile: dir.file("no/such/dir.wav"))
        #expect(throws: AudioDeviceError.invalidFile(path: dir.file("no/such/dir.wav"),
                                                     reason: "no such file: \(dir.file("no/such/dir.wav"))")) {
            try nowhere.initializeRendering()
        }
        #expect(throws: AudioDeviceError.notInitialized) { try nowhere.startRendering() }
    }
}
