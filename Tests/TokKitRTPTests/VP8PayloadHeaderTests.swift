import Testing
import TokKitRTP

@Suite struct VP8PayloadHeaderTests {
    static func parse(_ bytes: [UInt8]) throws(RTPError) -> VP8PayloadHeader {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(RTPError) -> VP8PayloadHeader in try VP8PayloadHeader(parsing: raw) }
        }
        return try result.get()
    }

    @Test func keyFrameHeaderGivesDimensions() throws {
        // A libvpx 640x480 key frame: P = 0, VER 0, show_frame, first partition size 0x1A5 = 421
        // (Size0 = 5, Size1 = 0x34 -> 5 + 8 * 52 = 421), start code, 640 (0x0280), 480 (0x01E0).
        let header = try Self.parse(hex("b0 34 00 9d 01 2a 80 02 e0 01"))
        #expect(header.isKeyFrame && header.showFrame && header.version == 0)
        #expect(header.firstPartitionSize == 421)
        #expect(header.width == 640 && header.height == 480)
        #expect(header.horizontalScale == 0 && header.verticalScale == 0)
    }

    @Test func scaleBitsAndLargeSizes() throws {
        // 1280x720 with scale 1 horizontal, 2 vertical; Size2 = 1 adds 2048.
        let header = try Self.parse(hex("10 00 01 9d 01 2a 00 45 d0 82"))
        #expect(header.firstPartitionSize == 2048)
        #expect(header.width == 1280 && header.horizontalScale == 1)
        #expect(header.height == 720 && header.verticalScale == 2)
    }

    @Test func interFrameHasNoDimensions() throws {
        let header = try Self.parse(hex("31 02 00 ff ff ff ff ff ff ff"))
        #expect(!header.isKeyFrame && header.showFrame && header.width == nil)
        #expect(header.firstPartitionSize == 1 + 16)
        #expect(!VP8PayloadHeader.isKeyFrame(firstByte: 0x31) && VP8PayloadHeader.isKeyFrame(firstByte: 0x30))
    }

    @Test func shortKeyFramePayloadLeavesDimensionsOut() throws {
        let header = try Self.parse(hex("10 00 00 9d"))
        #expect(header.isKeyFrame && header.width == nil)
    }

    @Test func malformedHeadersAreTypedErrors() {
        #expect(throws: RTPError.truncated(.vp8PayloadHeader, needed: 3, available: 2)) { try Self.parse(hex("10 00")) }
        #expect(throws: RTPError.invalidField(.vp8PayloadHeader, field: "key frame start code", value: 0x9D012B)) {
            try Self.parse(hex("10 00 00 9d 01 2b 80 02 e0 01"))
        }
    }
}
