import Testing
@testable import TokKitCapture

@Suite struct PGMWriterTests {
    @Test func writesNetpbmP5() throws {
        let padded: [UInt8] = [1, 2, 3, 0, 4, 5, 6, 0]
        let pgm = try padded.withUnsafeBytes { try PGMWriter.encode(width: 3, height: 2, pixels: $0, bytesPerRow: 4) }
        #expect(pgm == Array("P5\n3 2\n255\n".utf8) + [1, 2, 3, 4, 5, 6])
    }

    @Test func ffmpegReadsIt() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        let pixels = (0..<(31 * 7)).map { UInt8(truncatingIfNeeded: $0 &* 5) }
        try pixels.withUnsafeBytes { try PGMWriter.write(to: dir + "/x.pgm", width: 31, height: 7, pixels: $0) }
        let decoded = try RendererTestKit.run("ffmpeg", ["-v", "error", "-i", dir + "/x.pgm", "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        #expect(decoded == pixels)
    }

    @Test func badInputIsATypedError() throws {
        #expect(throws: MediaFileError.invalidImageSize(width: 3, height: 0)) {
            try [UInt8]().withUnsafeBytes { try PGMWriter.encode(width: 3, height: 0, pixels: $0) }
        }
        #expect(throws: MediaFileError.invalidArgument("5 bytes of pixels, image needs 6")) {
            try [UInt8](repeating: 0, count: 5).withUnsafeBytes { try PGMWriter.encode(width: 3, height: 2, pixels: $0) }
        }
    }
}
