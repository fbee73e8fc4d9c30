import Testing
import TokKitRTP

@Suite struct RTCPPictureLossIndicationTests {
    @Test func roundTripsGoldenBytes() throws {
        let golden = hex("81 ce 00 02 00 00 00 01 99 a8 7d 2d")
        let pli = try RTCPPictureLossIndication(parsing: golden)
        #expect(pli == RTCPPictureLossIndication(senderSSRC: 1, mediaSSRC: 0x99A8_7D2D))
        #expect(try pli.serialized() == golden)
    }

    @Test func rejectsWrongTypeAndShortBuffers() {
        #expect(throws: RTPError.unexpectedPacketType(expected: 206, actual: 205)) {
            try RTCPPictureLossIndication(parsing: hex("81 cd 00 02 00 00 00 01 00 00 00 02"))
        }
        var small = [UInt8](repeating: 0, count: 8)
        #expect(throws: RTPError.bufferTooSmall(needed: 12, available: 8)) {
            try small.withUnsafeMutableBytes { try RTCPPictureLossIndication(senderSSRC: 1, mediaSSRC: 2).write(into: $0) }
        }
    }
}
