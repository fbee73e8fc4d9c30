import Testing
import TokKitRTP

@Suite struct VP8PayloadDescriptorTests {
    static func parse(_ bytes: [UInt8]) throws(RTPError) -> VP8PayloadDescriptor {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(RTPError) -> VP8PayloadDescriptor in try VP8PayloadDescriptor(parsing: raw) }
        }
        return try result.get()
    }

    static func serialize(_ d: VP8PayloadDescriptor) throws -> [UInt8] {
        var out = [UInt8](repeating: 0xEE, count: 8)
        let n = try out.withUnsafeMutableBytes { try d.write(into: $0) }
        #expect(n == d.serializedLength)
        return Array(out.prefix(n))
    }

    /// RFC 7741 §4.2 layouts, each parsed, compared field by field and written back byte for byte.
    @Test(arguments: [
        // S only: the smallest descriptor.
        ("10", VP8PayloadDescriptor(startOfPartition: true)),
        // Continuation packet of partition 7, non-reference.
        ("27", VP8PayloadDescriptor(nonReference: true, startOfPartition: false, partitionIndex: 7)),
        // What libwebrtc and VP8Packetizer send: X, I, 15-bit picture ID 1.
        ("90 80 80 01", VP8PayloadDescriptor(startOfPartition: true, pictureID: .long(1))),
        // pion's vp8_packet_test "X and I, PID 16 bits": picture ID 0x0100.
        ("80 80 81 00", VP8PayloadDescriptor(startOfPartition: false, pictureID: .long(0x100))),
        // 7-bit picture ID 127.
        ("80 80 7f", VP8PayloadDescriptor(startOfPartition: false, pictureID: .short(127))),
        // Temporal layers (RFC 7741 §4.2, as Chromium sends with L1T2): I, L, T; TID 1, Y; TL0PICIDX 5.
        ("90 e0 ab cd 05 60", VP8PayloadDescriptor(startOfPartition: true, pictureID: .long(0x2BCD),
                                                   tl0PictureIndex: 5, temporalLayer: 1, layerSync: true)),
        // Everything: I (15 bit), L, T, K; TID 3, KEYIDX 31.
        ("b0 f0 ff ff ff df", VP8PayloadDescriptor(nonReference: true, startOfPartition: true,
                                                   pictureID: .long(0x7FFF), tl0PictureIndex: 255, temporalLayer: 3,
                                                   layerSync: false, keyIndex: 31)),
        // K without T.
        ("80 10 1f", VP8PayloadDescriptor(startOfPartition: false, keyIndex: 31)),
    ])
    func goldenBytesRoundTrip(hexBytes: String, expected: VP8PayloadDescriptor) throws {
        let bytes = hex(hexBytes)
        let parsed = try Self.parse(bytes)
        #expect(parsed == expected)
        #expect(parsed.serializedLength == bytes.count)
        #expect(try Self.serialize(expected) == bytes)
    }

    @Test func reservedBitsAreIgnoredOnReceiptAndWrittenAsZero() throws {
        // R bits (0x40, 0x08) and RSV (0x0F of the X octet) set.
        let parsed = try Self.parse(hex("d8 8f 05"))
        #expect(parsed == VP8PayloadDescriptor(startOfPartition: true, pictureID: .short(5)))
        #expect(try Self.serialize(parsed) == hex("90 80 05"))
        // X present with no optional field: kept so the length round-trips.
        let empty = try Self.parse(hex("90 00"))
        #expect(empty.serializedLength == 2 && empty.hasEmptyExtension && empty.startsFrame)
        #expect(try Self.serialize(empty) == hex("90 00"))
    }

    @Test func truncatedAndInvalidInputIsATypedError() {
        #expect(throws: RTPError.truncated(.vp8PayloadDescriptor, needed: 1, available: 0)) { try Self.parse([]) }
        #expect(throws: RTPError.truncated(.vp8PayloadDescriptor, needed: 2, available: 1)) { try Self.parse([0x80]) }
        #expect(throws: RTPError.truncated(.vp8PayloadDescriptor, needed: 3, available: 2)) {
            try Self.parse(hex("80 80"))
        }
        #expect(throws: RTPError.truncated(.vp8PayloadDescriptor, needed: 4, available: 3)) {
            try Self.parse(hex("80 80 80"))
        }
        #expect(throws: RTPError.truncated(.vp8PayloadDescriptor, needed: 5, available: 4)) {
            try Self.parse(hex("80 e0 80 01"))
        }
        // pion's "all flags" case: every optional field announced, two bytes given.
        #expect(throws: RTPError.self) { try Self.parse(hex("ff ff 00 00")) }
        // L without T violates §4.2.
        #expect(throws: RTPError.invalidField(.vp8PayloadDescriptor, field: "L bit without T bit", value: 0x40)) {
            try Self.parse(hex("80 40 00"))
        }
    }

    @Test func writeValidatesFieldsAndSpace() {
        #expect(throws: RTPError.valueOutOfRange(field: "VP8 PID", value: 8)) {
            try Self.serialize(VP8PayloadDescriptor(startOfPartition: true, partitionIndex: 8))
        }
        #expect(throws: RTPError.valueOutOfRange(field: "VP8 15-bit picture ID", value: 0x8000)) {
            try Self.serialize(VP8PayloadDescriptor(startOfPartition: true, pictureID: .long(0x8000)))
        }
        #expect(throws: RTPError.valueOutOfRange(field: "VP8 7-bit picture ID", value: 128)) {
            try Self.serialize(VP8PayloadDescriptor(startOfPartition: true, pictureID: .short(128)))
        }
        var small = [UInt8](repeating: 0, count: 3)
        #expect(throws: RTPError.bufferTooSmall(needed: 4, available: 3)) {
            try small.withUnsafeMutableBytes {
                try VP8PayloadDescriptor(startOfPartition: true, pictureID: .long(1)).write(into: $0)
            }
        }
    }
}
