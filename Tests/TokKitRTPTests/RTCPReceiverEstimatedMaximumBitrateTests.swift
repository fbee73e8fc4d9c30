import Testing
import TokKitRTP

@Suite struct RTCPReceiverEstimatedMaximumBitrateTests {
    /// Sent by Chrome while receiving a 6 Mbit/s stream (capture published with pion/rtcp's tests): exp 6, mantissa
    /// 139487, one SSRC.
    static let chrome = hex("8f ce 00 05 00 00 00 01 00 00 00 00 52 45 4d 42 01 1a 20 df 48 74 ed 16")

    @Test func decodesChromeREMB() throws {
        let remb = try RTCPReceiverEstimatedMaximumBitrate(parsing: Self.chrome)
        #expect(remb.senderSSRC == 1)
        #expect(remb.bitrate == 8_927_168)
        #expect(remb.ssrcs == [1_215_622_422])
        #expect(remb.encodedBitrate == (6, 139_487))
        #expect(try remb.serialized() == Self.chrome)
    }

    @Test func roundsDownAndSaturates() throws {
        let lower = RTCPReceiverEstimatedMaximumBitrate(senderSSRC: 1, bitrate: 8_927_167, ssrcs: [])
        #expect(lower.encodedBitrate == (6, 139_486))
        #expect(try RTCPReceiverEstimatedMaximumBitrate(parsing: lower.serialized()).bitrate == 8_927_104)
        // Exponent 63 with a full mantissa does not fit 64 bits: saturate.
        let huge = hex("8f ce 00 04 00 00 00 00 00 00 00 00 52 45 4d 42 00 ff ff ff")
        #expect(try RTCPReceiverEstimatedMaximumBitrate(parsing: huge).bitrate == .max)
        let max = RTCPReceiverEstimatedMaximumBitrate(senderSSRC: 0, bitrate: .max, ssrcs: [])
        #expect(max.encodedBitrate == (46, 0x3_FFFF))
    }

    @Test func rejectsOtherApplicationFeedback() {
        #expect(throws: RTPError.unknownApplicationFeedback(identifier: 0x4142_4344)) {
            try RTCPReceiverEstimatedMaximumBitrate(parsing: hex("8f ce 00 03 00 00 00 01 00 00 00 00 41 42 43 44"))
        }
        #expect(throws: RTPError.unexpectedPacketType(expected: 15, actual: 1)) {
            try RTCPReceiverEstimatedMaximumBitrate(parsing: hex("81 ce 00 02 00 00 00 01 00 00 00 00"))
        }
    }
}
