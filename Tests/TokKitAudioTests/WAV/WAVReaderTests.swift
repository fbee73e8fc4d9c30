import Foundation
import Testing
import TokKitAudio

@Suite struct WAVReaderTests {
    @Test func readsPeriodByPeriodAndRewinds() throws {
        let dir = TemporaryDirectory()
        let samples = pattern(count: 2 * 1_000)
        let writer = try WAVWriter(path: dir.file("a.wav"), format: .stereo)
        try samples.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()

        let reader = try WAVReader(path: dir.file("a.wav"))
        #expect(reader.format == .stereo && reader.frameCount == 1_000)
        var buffer = [Int16](repeating: -1, count: 960)
        var back: [Int16] = []
        var reads = 0
        while reads < 10 {
            let n = try buffer.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
            if n == 0 { break }
            back += buffer.prefix(n * 2)
            reads += 1
        }
        #expect(back == samples)
        #expect(reads == 3)   // 480 + 480 + 40 frames
        #expect(reader.isAtEnd && reader.framePosition == 1_000)
        reader.rewind()
        #expect(try buffer.withUnsafeMutableBufferPointer { try reader.read(into: $0) } == 480)
        #expect(Array(buffer) == Array(samples.prefix(960)))
        // A buffer smaller than one frame reads nothing.
        var one: [Int16] = [0]
        #expect(try one.withUnsafeMutableBufferPointer { try reader.read(into: $0) } == 0)
    }

    @Test func missingFileIsTyped() {
        #expect(throws: WAVError.fileNotFound("/nonexistent/tokkit.wav")) {
            _ = try WAVReader(path: "/nonexistent/tokkit.wav")
        }
        #expect(throws: WAVError.notWAV) { _ = try WAVReader(path: "/dev/null") }
    }

    /// Interoperability: ffmpeg writes a WAV with a LIST chunk; the reader yields exactly ffmpeg's raw samples.
    @Test func readsWhatFFmpegWrites() throws {
        let dir = TemporaryDirectory()
        let ffmpeg = try #require(findTool("ffmpeg"), "ffmpeg is required for this test (scripts/bootstrap --tests)")
        for (args, out) in [(["-f", "wav"], "sine.wav"), (["-f", "s16le"], "sine.raw")] {
            let status = try run(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i",
                                          "sine=frequency=440:sample_rate=48000:duration=0.25",
                                          "-ac", "2", "-c:a", "pcm_s16le"] + args + [dir.file(out)])
            try #require(status == 0, "ffmpeg failed (\(status))")
        }
        let reader = try WAVReader(path: dir.file("sine.wav"))
        #expect(reader.format == .stereo)
        #expect(reader.frameCount == 12_000)
        var all = [Int16](repeating: 0, count: reader.frameCount * 2)
        #expect(try all.withUnsafeMutableBufferPointer { try reader.read(into: $0) } == 12_000)
        #expect(bytes(of: all) == readBytes(dir.file("sine.raw")))
    }
}

/// The absolute path of `name` on PATH, or nil.
func findTool(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// Runs a tool to completion (the tools used here finish in well under a second) and returns its exit status.
func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: tool)
    p.arguments = arguments
    try p.run()
    p.waitUntilExit()
    return p.terminationStatus
}
