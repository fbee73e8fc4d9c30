import Testing
import TokKitRTP

@Suite struct RTPSendHistoryTests {
    static func packet(_ seq: UInt16, size: Int = 40) throws -> [UInt8] {
        let header = RTPHeader(payloadType: 96, sequenceNumber: seq, timestamp: UInt32(seq) * 3000, ssrc: 0xABCD)
        var out = [UInt8](repeating: 0, count: size)
        let payload = [UInt8](repeating: UInt8(truncatingIfNeeded: seq), count: size - 12)
        _ = try payload.withUnsafeBytes { p in try out.withUnsafeMutableBytes { try header.write(payload: p, into: $0) } }
        return out
    }

    @Test func keepsTheLastCapacityPacketsAcrossTheSequenceWrap() throws {
        let history = try RTPSendHistory(capacity: 100)
        var seq: UInt16 = 65_500
        for _ in 0..<300 {
            try Self.packet(seq).withUnsafeBytes { try history.store($0) }
            seq &+= 1
        }
        // The last stored is 65500 + 299 = 263 (mod 2^16): 164...263 are kept, older ones are gone.
        for s: UInt16 in [164, 200, 263, 0] where s >= 164 {
            let stored = try #require(history.packet(sequenceNumber: s))
            #expect(Array(stored) == (try Self.packet(s)))
        }
        #expect(history.packet(sequenceNumber: 163) == nil)
        #expect(history.packet(sequenceNumber: 65_535) == nil)
        #expect(history.packet(sequenceNumber: 264) == nil)
        history.removeAll()
        #expect(history.packet(sequenceNumber: 263) == nil)
    }

    /// A packet counts as asked for once, until its slot holds another packet.
    @Test func aPacketIsMarkedRequestedOnceUntilItIsStoredAgain() throws {
        let history = try RTPSendHistory(capacity: 4, maximumPacketSize: 64)
        try Self.packet(5).withUnsafeBytes { try history.store($0) }
        #expect(history.markRequested(sequenceNumber: 5))
        #expect(!history.markRequested(sequenceNumber: 5))
        #expect(!history.markRequested(sequenceNumber: 6))  // never stored
        try Self.packet(9).withUnsafeBytes { try history.store($0) }  // the same slot (9 % 4 == 5 % 4)
        #expect(!history.markRequested(sequenceNumber: 5))
        #expect(history.markRequested(sequenceNumber: 9))
    }

    @Test func rejectsPacketsThatDoNotFit() throws {
        let history = try RTPSendHistory(capacity: 4, maximumPacketSize: 100)
        #expect(throws: RTPError.truncated(.rtpHeader, needed: 12, available: 11)) {
            try [UInt8](repeating: 0x80, count: 11).withUnsafeBytes { try history.store($0) }
        }
        #expect(throws: RTPError.bufferTooSmall(needed: 101, available: 100)) {
            try Self.packet(1, size: 101).withUnsafeBytes { try history.store($0) }
        }
        #expect(throws: RTPError.self) { try RTPSendHistory(capacity: 0) }
    }
}
