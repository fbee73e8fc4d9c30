import Testing
import TokKitRTP

/// RFC 2198 redundant audio: ``REDPayload`` (both directions, and every malformed payload a typed error) and
/// ``REDPacketizer`` (each packet carries the one before).
@Suite struct REDPayloadTests {
    struct Parsed: Equatable {
        var payloadType: UInt8, offset: UInt32, distance: Int, bytes: [UInt8]
    }

    static func parse(_ payload: [UInt8]) throws(RTPError) -> [Parsed] {
        var blocks: [Parsed] = []
        try withBytes(payload) { (raw) throws(RTPError) in
            try REDPayload.forEachBlock(in: raw) { b in
                blocks.append(Parsed(payloadType: b.payloadType, offset: b.timestampOffset, distance: b.distance,
                                     bytes: Array(b.bytes)))
            }
        }
        return blocks
    }

    /// `Array.withUnsafeBytes` with a typed-throws body.
    static func withBytes(_ array: [UInt8], _ body: (UnsafeRawBufferPointer) throws(RTPError) -> Void) throws(RTPError) {
        try array.withUnsafeBytes { raw in Result { () throws(RTPError) in try body(raw) } }.get()
    }

    static func write(primary: [UInt8], redundant: [UInt8]?, offset: UInt32 = 960, pt: UInt8 = 111,
                      capacity: Int = 1500) throws(RTPError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: capacity)
        let result = out.withUnsafeMutableBytes { out in
            primary.withUnsafeBytes { p in
                (redundant ?? []).withUnsafeBytes { r in
                    Result { () throws(RTPError) -> Int in
                        try REDPayload.write(primary: p,
                                             redundant: redundant == nil ? nil : (bytes: r, timestampOffset: offset),
                                             payloadType: pt, into: out)
                    }
                }
            }
        }
        let length = try result.get()
        return Array(out[..<length])
    }

    @Test func writesTheRFC2198LayoutAndReadsItBack() throws {
        let bytes = try Self.write(primary: [0xF8, 1, 2, 3], redundant: [0xF8, 9, 9], offset: 960)
        // F=1|PT 111, offset 960 (14 bits), length 3 (10 bits); F=0|PT 111; redundant; primary.
        #expect(bytes == [0xEF, 0x0F, 0x00, 0x03, 0x6F, 0xF8, 9, 9, 0xF8, 1, 2, 3])
        #expect(try Self.parse(bytes) == [
            Parsed(payloadType: 111, offset: 0, distance: 0, bytes: [0xF8, 1, 2, 3]),
            Parsed(payloadType: 111, offset: 960, distance: 1, bytes: [0xF8, 9, 9]),
        ])
        let alone = try Self.write(primary: [0xF8, 7], redundant: nil)
        #expect(alone == [0x6F, 0xF8, 7])
        #expect(try Self.parse(alone) == [Parsed(payloadType: 111, offset: 0, distance: 0, bytes: [0xF8, 7])])
    }

    @Test func readsSeveralRedundantBlocksPrimaryFirstThenNewestFirst() throws {
        // Two redundant blocks (Chromium's distance 2), 1920 and 960 behind, then the primary.
        let bytes: [UInt8] = [0xEF, 0x1E, 0x00, 0x01, 0xEF, 0x0F, 0x00, 0x02, 0x6F, 0xA, 0xB, 0xB, 0xC]
        #expect(try Self.parse(bytes) == [
            Parsed(payloadType: 111, offset: 0, distance: 0, bytes: [0xC]),
            Parsed(payloadType: 111, offset: 960, distance: 1, bytes: [0xB, 0xB]),
            Parsed(payloadType: 111, offset: 1920, distance: 2, bytes: [0xA]),
        ])
    }

    @Test func malformedPayloadsAreTypedErrors() throws {
        let cases: [[UInt8]] = [
            [],                                     // nothing
            [0xEF],                                 // a redundant header cut after one byte
            [0xEF, 0x0F, 0x00],                     // ... after three
            [0xEF, 0x0F, 0x00, 0x03],               // no primary header
            [0xEF, 0x0F, 0x00, 0x05, 0x6F, 1, 2],   // redundant block longer than what follows
            [0xEF, 0x0F, 0x03, 0xFF, 0x6F],         // length 1023, nothing there
            [UInt8](repeating: 0xEF, count: 40),    // ten headers claiming more blocks: too many
        ]
        for bytes in cases {
            #expect(throws: RTPError.self, "\(bytes)") { try Self.parse(bytes) }
        }
        var tooMany: [UInt8] = []
        for _ in 0..<8 { tooMany += [0xEF, 0x00, 0x00, 0x00] }
        tooMany += [0x6F, 1]
        #expect(throws: RTPError.invalidField(.redundantAudio, field: "block count", value: 9)) { try Self.parse(tooMany) }
        // An empty primary is not an error (a sender with nothing new): one empty block.
        #expect(try Self.parse([0x6F]) == [Parsed(payloadType: 111, offset: 0, distance: 0, bytes: [])])
    }

    @Test func randomBytesNeverTrapAndNeverReadOutside() {
        var generator = SeededGenerator(seed: 2198)
        var parsed = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...40, using: &generator)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if count > 0, Bool.random(using: &generator) { bytes[0] |= 0x80 }
            if let blocks = try? Self.parse(bytes) {
                parsed += 1
                #expect(blocks.reduce(0) { $0 + $1.bytes.count } <= bytes.count)
                #expect(blocks.first?.distance == 0)
                #expect(blocks.map(\.distance) == Array(0..<blocks.count))
            }
        }
        #expect(parsed > 0)
    }

    @Test func writeRefusesWhatTheHeadersCannotHold() {
        #expect(throws: RTPError.valueOutOfRange(field: "RED timestamp offset", value: 16384)) {
            try Self.write(primary: [1], redundant: [2], offset: 16384)
        }
        #expect(throws: RTPError.valueOutOfRange(field: "RED block length", value: 1024)) {
            try Self.write(primary: [1], redundant: [UInt8](repeating: 2, count: 1024))
        }
        #expect(throws: RTPError.valueOutOfRange(field: "RED block payload type", value: 128)) {
            try Self.write(primary: [1], redundant: nil, pt: 128)
        }
        #expect(throws: RTPError.bufferTooSmall(needed: 8, available: 4)) {
            try Self.write(primary: [1, 2], redundant: [3], capacity: 4)
        }
    }

    /// Sends `payloads` (timestamps 960 apart unless given) through a packetizer; the parsed blocks of each packet.
    static func packetize(_ payloads: [[UInt8]], timestamps: [UInt32]? = nil,
                          limit: Int = REDPacketizer.capacity) throws -> [[Parsed]] {
        var packetizer = try REDPacketizer(redPayloadType: 63, blockPayloadType: 111)
        defer { packetizer.deallocate() }
        var out: [[Parsed]] = []
        for (i, payload) in payloads.enumerated() {
            let ts = timestamps?[i] ?? UInt32(i) &* 960 &+ 4_294_966_000  // across the wrap
            let packet = try payload.withUnsafeBytes { try Array(packetizer.packetize($0, timestamp: ts, limit: limit)) }
            out.append(try parse(packet))
        }
        #expect(packetizer.packetsWithRedundancy == out.filter { $0.count == 2 }.count)
        return out
    }

    @Test func eachPacketCarriesThePreviousOne() throws {
        let packets = try Self.packetize([[0xF8, 1], [0xF8, 2, 2], [0xF8, 3]])
        #expect(packets == [
            [Parsed(payloadType: 111, offset: 0, distance: 0, bytes: [0xF8, 1])],
            [Parsed(payloadType: 111, offset: 0, distance: 0, bytes: [0xF8, 2, 2]),
             Parsed(payloadType: 111, offset: 960, distance: 1, bytes: [0xF8, 1])],
            [Parsed(payloadType: 111, offset: 0, distance: 0, bytes: [0xF8, 3]),
             Parsed(payloadType: 111, offset: 960, distance: 1, bytes: [0xF8, 2, 2])],
        ])
    }

    @Test func leavesOutWhatCannotGo() throws {
        // After a DTX pause longer than the 14-bit offset (341 ms), and when the result would pass the limit.
        let paused = try Self.packetize([[0xF8, 1], [0xF8, 2]], timestamps: [0, 16_384])
        #expect(paused.map(\.count) == [1, 1])
        let justInside = try Self.packetize([[0xF8, 1], [0xF8, 2]], timestamps: [0, 16_383])
        #expect(justInside.map(\.count) == [1, 2])
        let big = [UInt8](repeating: 0xF8, count: 700)
        #expect(try Self.packetize([big, big], limit: 1_200).map(\.count) == [1, 1])
        #expect(try Self.packetize([big, [1]], limit: 1_200).map(\.count) == [1, 2])
        // Larger than a block header can describe: not sent as redundancy.
        let huge = [UInt8](repeating: 0xF8, count: 1_100)
        #expect(try Self.packetize([huge, [1]]).map(\.count) == [1, 1])
    }
}
