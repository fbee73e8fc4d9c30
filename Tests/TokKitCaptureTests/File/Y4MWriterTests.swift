import Testing
@testable import TokKitCapture

@Suite struct Y4MWriterTests {
    @Test func writesHeaderAndTightFramesThatReadBack() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        let path = dir + "/out.y4m"
        let w = try Y4MWriter(path: path)
        let header = Y4MStreamHeader(width: 5, height: 3, frameRate: .init(15, 1))
        try w.writeHeader(header)
        let frames = try (0..<3).map { try RendererTestKit.patternFrame(width: 5, height: 3, seed: $0, padding: 3) }
        for f in frames { try w.write(f) }
        #expect(w.framesWritten == 3)
        try w.close()
        try w.close()  // idempotent

        let bytes = try RendererTestKit.readFile(path)
        #expect(bytes.count == header.description.utf8.count + 3 * (6 + 15 + 2 * 6))
        let r = try Y4MReader(path: path)
        #expect(r.header == header)
        for f in frames {
            #expect(try r.readFrame())
            #expect(RendererTestKit.tightPlanes(r.frame()) == RendererTestKit.tightPlanes(f))
        }
        #expect(try !r.readFrame())
    }

    @Test func misuseIsATypedError() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        #expect(throws: MediaFileError.noSuchFile(path: dir + "/no/such/dir.y4m")) { try Y4MWriter(path: dir + "/no/such/dir.y4m") }
        #expect(throws: MediaFileError.isDirectory(path: dir)) { try Y4MWriter(path: dir) }

        let w = try Y4MWriter(path: dir + "/x.y4m")
        let frame = try RendererTestKit.patternFrame(width: 4, height: 4, seed: 0)
        #expect(throws: MediaFileError.frameMismatch("frame written before the stream header")) { try w.write(frame) }
        try w.writeHeader(Y4MStreamHeader(width: 4, height: 4, frameRate: .init(30, 1)))
        #expect(throws: MediaFileError.frameMismatch("the stream header was already written")) {
            try w.writeHeader(Y4MStreamHeader(width: 4, height: 4, frameRate: .init(30, 1)))
        }
        let wider = try RendererTestKit.patternFrame(width: 6, height: 4, seed: 0)
        #expect(throws: MediaFileError.frameMismatch("stream is I420 4x4, frame is \(wider.format)")) { try w.write(wider) }
        let argb = try VideoFrame(format: .argb(width: 4, height: 4), copying: [[UInt8](repeating: 0, count: 64)])
        #expect(throws: MediaFileError.frameMismatch("stream is I420 4x4, frame is \(argb.format)")) { try w.write(argb) }
        try w.write(frame)
        try w.close()
        #expect(throws: MediaFileError.closed) { try w.write(frame) }
        #expect(try RendererTestKit.readFile(dir + "/x.y4m").count == "YUV4MPEG2 W4 H4 F30:1 Ip A1:1 C420jpeg\n".utf8.count + 6 + 24)
    }
}
