import Testing
import TokKitRTP

@Suite struct RTCPFullIntraRequestTests {
    static let golden = hex("84 ce 00 04 00 00 00 01 00 00 00 00 99 a8 7d 2d 07 00 00 00")

    @Test func roundTripsGoldenBytes() throws {
        let fir = try RTCPFullIntraRequest(parsing: Self.golden)
        #expect(fir == RTCPFullIntraRequest(senderSSRC: 1, entries: [.init(ssrc: 0x99A8_7D2D, sequenceNumber: 7)]))
        #expect(try fir.serialized() == Self.golden)
    }

    @Test func pliIsNotAFIR() {
        #expect(throws: RTPError.unexpectedPacketType(expected: 4, actual: 1)) {
            try RTCPFullIntraRequest(parsing: hex("81 ce 00 02 00 00 00 01 00 00 00 02"))
        }
    }
}
