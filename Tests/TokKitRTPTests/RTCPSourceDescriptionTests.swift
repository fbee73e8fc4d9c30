import Testing
import TokKitRTP

@Suite struct RTCPSourceDescriptionTests {
    @Test func chunkPaddingFollowsTheNullOctet() throws {
        // CNAME of 2 bytes: 4 (SSRC) + 4 (item) + 1 (null) = 9, padded to 12.
        let sdes = RTCPSourceDescription(chunks: [.init(source: 5, cname: "ab")])
        #expect(try sdes.serialized() == hex("81 ca 00 03 00 00 00 05 01 02 61 62 00 00 00 00"))
        // CNAME of 1 byte: 4 + 3 + 1 = 8, no extra padding.
        let odd = RTCPSourceDescription(chunks: [.init(source: 5, cname: "a")])
        #expect(try odd.serialized() == hex("81 ca 00 02 00 00 00 05 01 01 61 00"))
        #expect(try RTCPSourceDescription(parsing: odd.serialized()) == odd)
    }

    @Test func rejectsItemsTheWireCannotCarry() {
        let long = RTCPSourceDescription(chunks: [.init(source: 1, cname: String(repeating: "x", count: 256))])
        #expect(throws: RTPError.valueOutOfRange(field: "SDES item length", value: 256)) { try long.serialized() }
        let zero = RTCPSourceDescription(chunks: [.init(source: 1, items: [.init(type: 0, value: [1])])])
        #expect(throws: RTPError.valueOutOfRange(field: "SDES item type", value: 0)) { try zero.serialized() }
    }
}
