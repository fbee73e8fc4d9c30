import Foundation
import Testing
import TokKitAudio

@Suite struct WAVWriterTests {
    @Test func writesTheCanonicalHeaderAndFixesItUp() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("w.wav")
        let writer = try WAVWriter(path: path, format: .voice)
        // Before any fix-up the sizes say "unknown", and a reader takes what the file holds.
        let written = pattern(count: 480 * 3)
        try written.withUnsafeBufferPointer { try writer.write($0) }
        #expect(try WAVReader(path: path).frameCount == 1_440)
        try writer.updateHeader()
        let fixed = try #require(readBytes(path))
        #expect(fixed.count == 44 + 2_880)
        #expect(Array(fixed.prefix(44)) == WAVHeader.canonicalBytes(format: .voice, dataByteCount: 2_880))
        #expect(samples(of: fixed.dropFirst(44)) == written)
        try written.withUnsafeBufferPointer { try writer.write($0) }
        #expect(writer.framesWritten == 2_880)
        try writer.close()
        try writer.close()   // idempotent
        #expect(try WAVHeader(parsing: readBytes(path)!).frameCount == 2_880)
        #expect(throws: WAVError.systemError(operation: "write", errno: EBADF)) {
            try written.withUnsafeBufferPointer { try writer.write($0) }
        }
    }

    @Test func refusesImpossibleFormatsAndPaths() {
        #expect(throws: WAVError.invalidFormat("0 channels")) {
            _ = try WAVWriter(path: "/tmp/never.wav", format: AudioFormat(numberOfChannels: 0))
        }
        #expect(throws: WAVError.invalidFormat("sample rate -1")) {
            _ = try WAVWriter(path: "/tmp/never.wav", format: AudioFormat(sampleRate: -1))
        }
        #expect(throws: WAVError.fileNotFound("/nonexistent/dir/x.wav")) {
            _ = try WAVWriter(path: "/nonexistent/dir/x.wav", format: .voice)
        }
    }

    /// Interoperability: ffprobe reads our files as 16-bit PCM of the right rate, channels and length.
    @Test func ffprobeAgrees() throws {
        let dir = TemporaryDirectory()
        let ffprobe = try #require(findTool("ffprobe"), "ffprobe is required for this test (scripts/bootstrap --tests)")
        let writer = try WAVWriter(path: dir.file("p.wav"), format: .stereo)
        let second = pattern(count: 96_000)
        try second.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        let out = Pipe()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ffprobe)
        p.arguments = ["-v", "error", "-show_entries", "stream=codec_name,sample_rate,channels,duration_ts",
                       "-of", "default=noprint_wrappers=1", dir.file("p.wav")]
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(text.contains("codec_name=pcm_s16le"))
        #expect(text.contains("sample_rate=48000"))
        #expect(text.contains("channels=2"))
        #expect(text.contains("duration_ts=48000"))
    }
}
