import Testing
import TokKitRTP

@Suite struct RTPPacketViewTests {
    /// A VP8 packet as Chromium sends it: one-byte extensions abs-send-time (id 2), transport-wide-cc (id 3), mid (4).
    static let chromiumVP8 = hex("""
        90 e0 1f 40 00 0b b8 00 99 a8 7d 2d  be de 00 03  22 12 34 56  31 00 2a  40 31  00 00 00
        90 80 00 9d 01 2a
        """)

    @Test func parsesFixedHeaderAndOneByteExtensions() throws {
        try withRTP(Self.chromiumVP8) { p in
            #expect(p.version == 2)
            #expect(p.marker)
            #expect(p.payloadType == 96)
            #expect(p.sequenceNumber == 0x1F40)
            #expect(p.timestamp == 768_000)
            #expect(p.ssrc == 0x99A8_7D2D)
            #expect(p.csrcCount == 0)
            #expect(p.extensionForm == .oneByte)
            #expect(p.headerLength == 12 + 4 + 12)
            #expect(Array(p.payload) == [0x90, 0x80, 0x00, 0x9D, 0x01, 0x2A])
            let elements = p.extensions.map { ($0.id, Array($0.value)) }
            #expect(elements.map(\.0) == [2, 3, 4])
            #expect(elements.map(\.1) == [[0x12, 0x34, 0x56], [0x00, 0x2A], [0x31]])
            let map = RTPHeaderExtensionMap(mid: 4, absoluteSendTime: 2, transportWideCC: 3)
            #expect(p.mid(map) == "1")
            #expect(p.absoluteSendTime(map) == 0x12_3456)
            #expect(p.transportWideSequenceNumber(map) == 42)
            #expect(p.mid(RTPHeaderExtensionMap()) == nil)
        }
    }

    @Test func parsesCSRCsTwoByteExtensionsAndPadding() throws {
        let bytes = hex("""
            b2 6f 00 01 00 00 00 02 00 00 00 03  00 00 00 0a 00 00 00 0b
            10 00 00 02  05 00 00 07 02 61 62 00
            ff ff  00 00 03
            """)
        try withRTP(bytes) { p in
            #expect(p.csrcCount == 2)
            #expect(p.csrc(at: 0) == 10 && p.csrc(at: 1) == 11 && p.csrc(at: 2) == nil && p.csrc(at: -1) == nil)
            #expect(p.extensionForm == .twoByte(appBits: 0))
            #expect(p.extensions.map(\.id) == [5, 7])
            #expect(p.extensions.value(id: 5)?.count == 0)
            #expect(p.extensions.value(id: 7).map(Array.init) == [0x61, 0x62])
            #expect(p.paddingLength == 3)
            #expect(Array(p.payload) == [0xFF, 0xFF])
        }
    }

    @Test func skipsPaddingUnknownIDsAndStopsAtID15() throws {
        // padding byte, id 9 (unknown to the map), id 15 (stop): the element after 15 is never reported.
        let bytes = hex("90 60 00 01 00 00 00 01 00 00 00 01  be de 00 02  00 90 aa f0 10 bb 00 00")
        try withRTP(bytes) { p in
            #expect(p.extensions.map(\.id) == [9])
            #expect(p.mid(RTPHeaderExtensionMap(mid: 1)) == nil)
        }
    }

    @Test func opaqueExtensionProfileIsKeptRaw() throws {
        let bytes = hex("90 60 00 01 00 00 00 01 00 00 00 01  ab cd 00 01  de ad be ef  77")
        try withRTP(bytes) { p in
            #expect(p.extensionForm == .opaque(profile: 0xABCD))
            #expect(Array(p.extensionBlock) == [0xDE, 0xAD, 0xBE, 0xEF])
            #expect(Array(p.extensions).isEmpty)
            #expect(Array(p.payload) == [0x77])
        }
    }

    @Test func rejectsMalformedPackets() {
        #expect(rtpError([]) == .truncated(.rtpHeader, needed: 12, available: 0))
        #expect(rtpError(hex("80 60 00 01 00 00 00 01 00 00 00")) == .truncated(.rtpHeader, needed: 12, available: 11))
        #expect(rtpError(hex("40 60 00 01 00 00 00 01 00 00 00 01")) == .unsupportedVersion(1))
        // CSRC count 15 with no CSRCs present.
        #expect(rtpError(hex("8f 60 00 01 00 00 00 01 00 00 00 01 00 00 00 0a"))
            == .truncated(.csrcList, needed: 72, available: 16))
        // Extension header cut short, then an extension length running past the end.
        #expect(rtpError(hex("90 60 00 01 00 00 00 01 00 00 00 01 be de"))
            == .truncated(.headerExtension, needed: 16, available: 14))
        #expect(rtpError(hex("90 60 00 01 00 00 00 01 00 00 00 01 be de ff ff 00 00 00 00"))
            == .truncated(.headerExtension, needed: 16 + 4 * 0xFFFF, available: 20))
        // One-byte element of 16 bytes in a 4-byte block; two-byte element missing its length byte.
        #expect(rtpError(hex("90 60 00 01 00 00 00 01 00 00 00 01 be de 00 01 1f 00 00 00"))
            == .extensionElementOverrun(id: 1, length: 16, remaining: 3))
        #expect(rtpError(hex("90 60 00 01 00 00 00 01 00 00 00 01 10 00 00 01 00 00 00 05"))
            == .extensionElementOverrun(id: 5, length: 1, remaining: 0))
        // Padding count of zero, larger than the payload, or padding with nothing after the header.
        #expect(rtpError(hex("a0 60 00 01 00 00 00 01 00 00 00 01 aa 00")) == .invalidPadding(count: 0, available: 2))
        #expect(rtpError(hex("a0 60 00 01 00 00 00 01 00 00 00 01 aa 03")) == .invalidPadding(count: 3, available: 2))
        #expect(rtpError(hex("a0 60 00 01 00 00 00 01 00 00 00 01")) == .invalidPadding(count: 0, available: 0))
    }

    @Test func paddingMayFillTheWholePayload() throws {
        try withRTP(hex("a0 60 00 01 00 00 00 01 00 00 00 01 00 00 03")) { p in
            #expect(p.payloadLength == 0)
            #expect(p.paddingLength == 3)
        }
    }
}
