import Testing
@testable import TokKitCapture

@Suite struct Y4MStreamHeaderTests {
    func parse(_ line: String) throws(MediaFileError) -> Y4MStreamHeader {
        try Y4MStreamHeader(parsing: Array(line.utf8))
    }

    @Test func parsesEveryTag() throws {
        let h = try parse("YUV4MPEG2 W64 H48 F30000:1001 It A128:117 C420mpeg2 XYSCSS=420MPEG2")
        #expect(h.width == 64)
        #expect(h.height == 48)
        #expect(h.frameRate == .init(30000, 1001))
        #expect(abs(h.framesPerSecond - 29.97) < 0.001)
        #expect(h.interlacing == "t")
        #expect(h.pixelAspect == .init(128, 117))
        #expect(h.chromaSiting == .mpeg2)
        #expect(h.videoFormat == .i420(width: 64, height: 48, fps: 30000.0 / 1001))
    }

    @Test func defaultsWithoutOptionalTags() throws {
        let h = try parse("YUV4MPEG2 W5 H3")
        #expect(h.chromaSiting == .unspecified)
        #expect(h.frameRate == .init(25, 1))
        #expect(h.frameSize == 15 + 2 * 6)
        #expect(try parse("YUV4MPEG2 W5 H3 F0:0").frameRate == .init(25, 1))
    }

    @Test(arguments: ["420jpeg", "420paldv", "420mpeg2", "420"])
    func accepts420Colorspaces(tag: String) throws {
        #expect(try parse("YUV4MPEG2 W4 H4 F30:1 C\(tag)").chromaSiting.rawValue == tag)
    }

    @Test(arguments: ["444", "422", "mono", "420p10", "411", ""])
    func rejectsOtherColorspaces(tag: String) {
        #expect(throws: MediaFileError.unsupportedY4MColorspace(tag)) { try parse("YUV4MPEG2 W4 H4 C\(tag)") }
    }

    @Test func rejectsMalformedHeaders() {
        #expect(throws: MediaFileError.notY4M) { try parse("YUV4MPEG W4 H4") }
        #expect(throws: MediaFileError.notY4M) { try parse("") }
        #expect(throws: MediaFileError.notY4M) { try parse("\u{89}PNG") }
        let malformed = [
            "YUV4MPEG2 H4", "YUV4MPEG2 W4", "YUV4MPEG2 W0 H4", "YUV4MPEG2 W-4 H4", "YUV4MPEG2 Wabc H4",
            "YUV4MPEG2 W16385 H4", "YUV4MPEG2 W4 H99999999999999999999", "YUV4MPEG2 W4 H4 F30:0", "YUV4MPEG2 W4 H4 F30",
            "YUV4MPEG2 W4 H4 F:1", "YUV4MPEG2 W4 H4 F30:1:1", "YUV4MPEG2 W4 H4 Ix", "YUV4MPEG2 W4 H4 Ipp",
            "YUV4MPEG2 W4 H4 Aone", "YUV4MPEG2 W4 H",
        ]
        for line in malformed {
            #expect {
                try parse(line)
            } throws: { error in
                guard case MediaFileError.malformedY4MHeader = error else { return false }
                return true
            }
        }
    }

    @Test func rejectsOverlongHeader() {
        let line = "YUV4MPEG2 W4 H4 X" + String(repeating: "x", count: Y4MStreamHeader.maximumLength)
        #expect(throws: MediaFileError.malformedY4MHeader("longer than \(Y4MStreamHeader.maximumLength) bytes")) {
            try parse(line)
        }
    }

    @Test func descriptionParsesBackToTheSameHeader() throws {
        let h = Y4MStreamHeader(width: 641, height: 481, frameRate: .init(30000, 1001))
        #expect(h.description == "YUV4MPEG2 W641 H481 F30000:1001 Ip A1:1 C420jpeg\n")
        #expect(try parse(String(h.description.dropLast())) == h)
    }

    @Test func frameRatesAreApproximatedAsY4MWritesThem() {
        #expect(Y4MStreamHeader.Ratio.approximating(30) == .init(30, 1))
        #expect(Y4MStreamHeader.Ratio.approximating(29.97002997) == .init(30000, 1001))
        #expect(Y4MStreamHeader.Ratio.approximating(12.5) == .init(12500, 1000))
        #expect(Y4MStreamHeader.Ratio.approximating(0) == .init(25, 1))
        #expect(Y4MStreamHeader.Ratio.approximating(.nan) == .init(25, 1))
    }
}
