import Testing
@testable import TokKitDTLS

@Suite struct PacketDemuxTests {
    func classify(_ bytes: [UInt8]) -> PacketClass { bytes.withUnsafeBytes { PacketClass($0) } }

    @Test func firstByteRangesFollowRFC7983() {
        #expect(classify([22, 0xFE, 0xFD]) == .dtls)           // handshake record
        #expect(classify([0x80, 111]) == .rtp)                 // Opus
        #expect(classify([0x80, 96 | 0x80]) == .rtp)           // VP8 with marker
        #expect(classify([0x80, 200]) == .rtcp)                // SR
        #expect(classify([0x81, 205]) == .rtcp)                // transport feedback
        #expect(classify([0x00, 0x01]) == .other)              // STUN
        #expect(classify([64, 0]) == .other)                   // TURN channel
        #expect(classify([0x80]) == .other)                    // too short
        #expect(classify([]) == .other)
    }
}
