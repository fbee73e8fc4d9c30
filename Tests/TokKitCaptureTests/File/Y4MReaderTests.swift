import Testing
@testable import TokKitCapture

@Suite struct Y4MReaderTests {
    /// A 4x2 stream: frames of 8 + 2 + 2 bytes.
    static let header = Array("YUV4MPEG2 W4 H2 F10:1 C420jpeg\n".utf8)
    static func frame(_ fill: UInt8) -> [UInt8] { Array("FRAME\n".utf8) + [UInt8](repeating: fill, count: 12) }

    @discardableResult
    func withFile<R>(_ bytes: [UInt8], _ body: (String) throws -> R) throws -> R {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        let path = dir + "/in.y4m"
        try RendererTestKit.writeFile(path, bytes)
        return try body(path)
    }

    @Test func readsFramesUntilTheEndAndRewinds() throws {
        try withFile(Self.header + Self.frame(1) + Array("FRAME Ixyz A1:1\n".utf8) + [UInt8](repeating: 2, count: 12)) { path in
            let r = try Y4MReader(path: path)
            #expect(r.header.width == 4 && r.header.height == 2)
            #expect(try r.readFrame())
            #expect(RendererTestKit.tightPlanes(r.frame()) == [[1, 1, 1, 1, 1, 1, 1, 1], [1, 1], [1, 1]])
            #expect(r.frame().isBorrowed)
            #expect(try r.readFrame())  // FRAME parameters are skipped
            #expect(RendererTestKit.tightPlanes(r.frame())[0] == [UInt8](repeating: 2, count: 8))
            #expect(try !r.readFrame())
            #expect(try !r.readFrame())
            #expect(r.framesRead == 2)
            try r.rewind()
            #expect(r.framesRead == 0)
            #expect(try r.readFrame())
            #expect(RendererTestKit.tightPlanes(r.frame())[2] == [1, 1])
        }
    }

    @Test func aKeptFrameExpiresOnTheNextReadOnRewindAndWithTheReader() throws {
        try withFile(Self.header + Self.frame(1) + Self.frame(2)) { path in
            var third: VideoFrame?
            do {
                let r = try Y4MReader(path: path)
                #expect(try r.readFrame())
                let first = r.frame()
                #expect(try first.withPlanes { Array($0[0]) } == [UInt8](repeating: 1, count: 8))
                #expect(try r.readFrame())  // refills the buffer `first` borrowed
                #expect(throws: VideoFrameError.expired) { try first.withPlanes { Array($0[0]) } }
                #expect(throws: VideoFrameError.expired) { try first.copy(using: VideoFramePool(capacity: 1)) }
                let second = r.frame()
                #expect(try second.withPlanes { Array($0[0]) } == [UInt8](repeating: 2, count: 8))
                try r.rewind()
                #expect(throws: VideoFrameError.expired) { try second.withPlanes { Array($0[0]) } }
                #expect(try r.readFrame())
                third = r.frame()
                #expect(try third?.withPlanes { Array($0[0]) } == [UInt8](repeating: 1, count: 8))
            }  // the reader is gone, its buffer freed
            #expect(throws: VideoFrameError.expired) { try third?.withPlanes { Array($0[0]) } }
        }
    }

    @Test func missingUnreadableAndNonY4MFilesAreTypedErrors() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        #expect(throws: MediaFileError.noSuchFile(path: dir + "/none.y4m")) { try Y4MReader(path: dir + "/none.y4m") }
        #expect(throws: MediaFileError.isDirectory(path: dir)) { try Y4MReader(path: dir) }
        try withFile([]) { path in #expect(throws: MediaFileError.notY4M) { try Y4MReader(path: path) } }
        try withFile(Array("RIFF....WAVEfmt ".utf8)) { path in #expect(throws: MediaFileError.notY4M) { try Y4MReader(path: path) } }
        try withFile(Array("YUV4MPEG2 W4 H2".utf8)) { path in
            #expect(throws: MediaFileError.malformedY4MHeader("no end of line in the first 4096 bytes")) { try Y4MReader(path: path) }
        }
        try withFile(Array("YUV4MPEG2 W4 H2 C444\n".utf8)) { path in
            #expect(throws: MediaFileError.unsupportedY4MColorspace("444")) { try Y4MReader(path: path) }
        }
    }

    @Test func badFrameHeaderMidFileIsATypedError() throws {
        for bad in ["FRAMX\n", "frame\n", "FRAME-\n", "\nFRAME\n"] {
            try withFile(Self.header + Self.frame(1) + Array(bad.utf8) + [UInt8](repeating: 2, count: 12)) { path in
                let r = try Y4MReader(path: path)
                #expect(try r.readFrame())
                #expect(throws: MediaFileError.malformedY4MFrameHeader(frame: 1)) { try r.readFrame() }
            }
        }
        let endless = "FRAME " + String(repeating: "X", count: Y4MReader.maximumFrameHeaderLength + 1)
        try withFile(Self.header + Array(endless.utf8)) { path in
            #expect(throws: MediaFileError.malformedY4MFrameHeader(frame: 0)) { try Y4MReader(path: path).readFrame() }
        }
    }

    @Test func truncatedFramesAreTypedErrors() throws {
        for tail in [Array("FRA".utf8), Array("FRAME\n".utf8) + [9, 9, 9], Array("FRAME Ip".utf8)] {
            try withFile(Self.header + Self.frame(1) + tail) { path in
                let r = try Y4MReader(path: path)
                #expect(try r.readFrame())
                #expect(throws: MediaFileError.truncatedY4MFrame(frame: 1)) { try r.readFrame() }
            }
        }
    }
}
