import Testing
import TokKitRTP

@Suite struct RTCPGoodbyeTests {
    @Test func reasonIsLengthPrefixedAndPadded() throws {
        let bye = RTCPGoodbye(sources: [0x99A8_7D2D], reason: "bye")
        let bytes = try bye.serialized()
        #expect(bytes == hex("81 cb 00 02 99 a8 7d 2d 03 62 79 65"))
        #expect(try RTCPGoodbye(parsing: bytes).reasonText == "bye")
    }

    @Test func rejectsTruncatedReason() {
        #expect(throws: RTPError.truncated(.goodbye, needed: 17, available: 8)) {
            try RTCPGoodbye(parsing: hex("81 cb 00 02 00 00 00 01 0c 62 79 65"))
        }
        #expect(throws: RTPError.countMismatch(.goodbye, count: 3, length: 4)) {
            try RTCPGoodbye(parsing: hex("83 cb 00 01 00 00 00 01"))
        }
    }
}
