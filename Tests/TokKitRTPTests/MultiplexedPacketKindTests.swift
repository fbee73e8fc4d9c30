import Testing
import TokKitRTP

@Suite struct MultiplexedPacketKindTests {
    @Test func classifiesByFirstByteRanges() {
        #expect(MultiplexedPacketKind(classifying: hex("00 01 00 00 21 12 a4 42")) == .stun)  // binding request
        #expect(MultiplexedPacketKind(classifying: [3]) == .stun)
        #expect(MultiplexedPacketKind(classifying: [16]) == .zrtp)
        #expect(MultiplexedPacketKind(classifying: hex("16 fe fd 00 00")) == .dtls)  // DTLS 1.2 handshake
        #expect(MultiplexedPacketKind(classifying: [63]) == .dtls)
        #expect(MultiplexedPacketKind(classifying: [0x40, 0x00]) == .turnChannel)
        #expect(MultiplexedPacketKind(classifying: [79]) == .turnChannel)
        for unclaimed: UInt8 in [4, 15, 80, 127, 192, 255] {
            #expect(MultiplexedPacketKind(classifying: [unclaimed, 0]) == .unknown)
        }
        #expect(MultiplexedPacketKind(classifying: []) == .unknown)
        #expect(MultiplexedPacketKind(classifying: [0x80]) == .unknown)
    }

    @Test func separatesRTPFromRTCPByPayloadType() {
        // RFC 5761 §4: second byte 192-223 is RTCP (SR 200 ... XR 207), everything else RTP.
        #expect(MultiplexedPacketKind(classifying: RTCPCompoundPacketTests.chromiumSenderReport) == .rtcp)
        #expect(MultiplexedPacketKind(classifying: RTPPacketViewTests.chromiumVP8) == .rtp)
        #expect(MultiplexedPacketKind(classifying: [0x80, 191]) == .rtp)  // PT 63 with marker
        #expect(MultiplexedPacketKind(classifying: [0x80, 192]) == .rtcp)
        #expect(MultiplexedPacketKind(classifying: [0x80, 223]) == .rtcp)
        #expect(MultiplexedPacketKind(classifying: [0x80, 224]) == .rtp)  // PT 96 with marker
        #expect(MultiplexedPacketKind(classifying: [0x80, 0x6F]) == .rtp)  // Opus 111
    }
}
