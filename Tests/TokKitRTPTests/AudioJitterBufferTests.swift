import Testing
import TokKitRTP

@Suite struct AudioJitterBufferTests {
    /// A recognizable payload for sequence number `seq`.
    static func payload(_ seq: UInt16) -> [UInt8] { [0x78, UInt8(seq >> 8), UInt8(seq & 0xFF)] }

    @discardableResult
    static func insert(_ buffer: AudioJitterBuffer, _ seq: UInt16) throws -> AudioJitterBuffer.Insertion {
        try payload(seq).withUnsafeBytes { try buffer.insert(sequenceNumber: seq, timestamp: UInt32(seq) &* 960, payload: $0) }
    }

    enum Popped: Equatable {
        case packet(UInt16)
        case missing(UInt16, following: UInt16?)
        case empty
        case hold
    }

    /// Pops once and checks the bytes match the sequence number.
    static func pop(_ buffer: AudioJitterBuffer) -> Popped {
        switch buffer.pop() {
        case .packet(let p):
            #expect(Array(p.bytes) == payload(p.sequenceNumber) && p.timestamp == UInt32(p.sequenceNumber) &* 960)
            return .packet(p.sequenceNumber)
        case .missing(let seq, let following):
            if let f = following { #expect(Array(f.bytes) == payload(f.sequenceNumber)) }
            return .missing(seq, following: following?.sequenceNumber)
        case .empty: return .empty
        case .hold: return .hold
        }
    }

    @Test func prerollsToTheTargetThenPlaysInOrderAcrossTheWrap() throws {
        let buffer = try AudioJitterBuffer()
        #expect(buffer.targetPackets == 2 && buffer.maximumPackets == 6)
        #expect(Self.pop(buffer) == .empty)
        try Self.insert(buffer, 65534)
        #expect(Self.pop(buffer) == .empty)  // 20 ms buffered, target 40 ms
        try Self.insert(buffer, 65535)
        #expect(Self.pop(buffer) == .packet(65534))
        for seq: UInt16 in [0, 1, 2] {
            try Self.insert(buffer, seq)
            #expect(Self.pop(buffer) == .packet(seq &- 1))
        }
        #expect(Self.pop(buffer) == .packet(2))
        #expect(buffer.count == 0)
    }

    @Test func reorderedPacketsComeOutSortedAndDuplicatesAndLateOnesAreDropped() throws {
        let buffer = try AudioJitterBuffer()
        try Self.insert(buffer, 11)
        try Self.insert(buffer, 10)  // before playout started: widens the pre-roll
        #expect(try Self.insert(buffer, 11) == .duplicate)
        #expect(Self.pop(buffer) == .packet(10))
        try Self.insert(buffer, 13)
        try Self.insert(buffer, 12)
        #expect(Self.pop(buffer) == .packet(11))
        #expect(Self.pop(buffer) == .packet(12))
        #expect(try Self.insert(buffer, 11) == .late)
        #expect(Self.pop(buffer) == .packet(13))
        #expect(buffer.counters.packetsDuplicate == 1 && buffer.counters.packetsLate == 1)
    }

    @Test func aLostPacketIsReportedMissingWithTheFollowingOneForFEC() throws {
        let buffer = try AudioJitterBuffer()
        for seq: UInt16 in [100, 101, 103, 104] { try Self.insert(buffer, seq) }
        #expect(Self.pop(buffer) == .packet(100))
        #expect(Self.pop(buffer) == .packet(101))
        #expect(Self.pop(buffer) == .missing(102, following: 103))
        #expect(Self.pop(buffer) == .packet(103))
        // 105 missing and nothing after it yet: an underrun, not a loss.
        #expect(Self.pop(buffer) == .packet(104))
        #expect(Self.pop(buffer) == .empty)
        #expect(buffer.counters.underruns == 1 && buffer.counters.packetsMissing == 1)
        // 105 arrives late but still in time: it plays after a new pre-roll.
        try Self.insert(buffer, 105)
        try Self.insert(buffer, 106)
        #expect(Self.pop(buffer) == .packet(105))
        // Two lost in a row, with something after them.
        for seq: UInt16 in [109, 110] { try Self.insert(buffer, seq) }
        #expect(Self.pop(buffer) == .packet(106))
        #expect(Self.pop(buffer) == .missing(107, following: nil))
        #expect(Self.pop(buffer) == .missing(108, following: 109))
        #expect(Self.pop(buffer) == .packet(109))
    }

    @discardableResult
    static func insertRedundant(_ buffer: AudioJitterBuffer, _ seq: UInt16) throws -> Bool {
        try payload(seq).withUnsafeBytes {
            try buffer.insertRedundant(sequenceNumber: seq, timestamp: UInt32(seq) &* 960, payload: $0)
        }
    }

    /// RFC 2198 copies fill the place of a lost packet (flagged as such), and are ignored, uncounted, where the
    /// packet is here, already played, or outside what is known; they never move the window.
    @Test func redundantCopiesFillOnlyTheHolesOfLostPackets() throws {
        let buffer = try AudioJitterBuffer()
        #expect(try !Self.insertRedundant(buffer, 99))  // nothing known yet
        for seq: UInt16 in [65534, 65535] { try Self.insert(buffer, seq) }
        #expect(Self.pop(buffer) == .packet(65534))
        // 0 lost; 1 arrives with a copy of 0 (across the wrap).
        try Self.insert(buffer, 1)
        #expect(try Self.insertRedundant(buffer, 0))
        #expect(try !Self.insertRedundant(buffer, 65535))  // here already
        #expect(try !Self.insertRedundant(buffer, 65534))  // played
        #expect(try !Self.insertRedundant(buffer, 2))      // newer than the newest: not a copy of a known hole
        #expect(try !Self.insertRedundant(buffer, 30_000)) // far away: no resynchronization
        #expect(Self.pop(buffer) == .packet(65535))
        guard case .packet(let recovered) = buffer.pop() else { Issue.record("0 was not recovered"); return }
        #expect(recovered.sequenceNumber == 0 && recovered.isRedundant && Array(recovered.bytes) == Self.payload(0))
        guard case .packet(let plain) = buffer.pop() else { Issue.record("1 did not play"); return }
        #expect(plain.sequenceNumber == 1 && !plain.isRedundant)
        #expect(buffer.counters.packetsRedundantStored == 1 && buffer.counters.packetsMissing == 0)
        #expect(buffer.counters.packetsLate == 0 && buffer.counters.packetsDuplicate == 0)
        #expect(buffer.counters.resynchronizations == 0)
        // A copy too long or empty is a typed error, as for packets.
        #expect(throws: RTPError.self) { try buffer.insertRedundant(sequenceNumber: 1, timestamp: 0, payload: UnsafeRawBufferPointer(start: nil, count: 0)) }
    }

    /// Lip sync's extra delay: playout holds one interval at a time (at most one per ``adjustmentSpacing``) until
    /// the delay is added, and skips one packet at a time when it is taken off; the packets still come in order.
    @Test func anExtraDelayIsAddedByHoldsAndTakenOffBySkipsSpreadOut() throws {
        let buffer = try AudioJitterBuffer()
        var seq: UInt16 = 500
        var outputs: [Popped] = []
        func tick() throws {  // one packet arrives, one interval plays
            try Self.insert(buffer, seq)
            seq &+= 1
            outputs.append(Self.pop(buffer))
        }
        for _ in 0..<12 { try tick() }
        #expect(!outputs.contains(.hold))
        buffer.setExtraDelay(packets: 3)
        outputs = []
        for _ in 0..<40 { try tick() }
        let holds = outputs.indices.filter { outputs[$0] == .hold }
        #expect(holds.count == 3 && buffer.counters.holds == 3, "\(outputs)")
        #expect(zip(holds, holds.dropFirst()).allSatisfy { $1 - $0 >= AudioJitterBuffer.adjustmentSpacing }, "\(holds)")
        let played = outputs.compactMap { p -> UInt16? in
            if case .packet(let s) = p { return s }
            return nil
        }
        #expect(zip(played, played.dropFirst()).allSatisfy { $1 == $0 &+ 1 }, "\(played)")
        #expect(buffer.count >= buffer.targetPackets + 2, "3 more packets wait (one arrives per pop)")
        // Taken off again: three packets skipped, one per spacing at most, never an underrun.
        buffer.setExtraDelay(packets: 0)
        outputs = []
        for _ in 0..<40 { try tick() }
        #expect(buffer.counters.packetsSkipped == 3 && buffer.counters.underruns == 0, "\(buffer.counters)")
        #expect(!outputs.contains(.empty) && !outputs.contains(.hold), "\(outputs)")
        // Clamped to the capacity.
        buffer.setExtraDelay(packets: 1_000)
        #expect(buffer.extraPackets == buffer.configuration.capacity - buffer.maximumPackets - 1)
        buffer.setExtraDelay(packets: -5)
        #expect(buffer.extraPackets == 0)
    }

    /// A burst that trims the buffer while a lower extra delay is still being followed keeps the delay in effect:
    /// the skips then take the change off once, not the trim and the skips both.
    @Test func aBurstDuringADecreaseDoesNotTakeTheDelayOffTwice() throws {
        let buffer = try AudioJitterBuffer()
        var seq: UInt16 = 100
        buffer.setExtraDelay(packets: 10)
        for _ in 0..<(buffer.targetPackets + 10) {
            try Self.insert(buffer, seq)
            seq &+= 1
        }
        for _ in 0..<30 {  // steady: one packet in, one out
            try Self.insert(buffer, seq)
            seq &+= 1
            _ = Self.pop(buffer)
        }
        #expect(buffer.count == buffer.targetPackets + 10)
        buffer.setExtraDelay(packets: 4)
        for _ in 0..<8 {  // a burst over the maximum
            try Self.insert(buffer, seq)
            seq &+= 1
        }
        _ = Self.pop(buffer)
        #expect(buffer.counters.packetsDiscarded > 0)
        for _ in 0..<100 {
            try Self.insert(buffer, seq)
            seq &+= 1
            _ = Self.pop(buffer)
        }
        #expect(buffer.counters.packetsSkipped == 6, "\(buffer.counters)")
        // The trim keeps the target counting the packet it plays at once: one less than a pre-roll waits for.
        #expect(buffer.count == buffer.targetPackets + 4 - 1, "\(buffer.counters)")
        #expect(buffer.counters.underruns == 0)
    }

    @Test func aBurstAboveTheMaximumDelayIsCutBackToTheTarget() throws {
        let buffer = try AudioJitterBuffer()
        for seq: UInt16 in 0..<10 { try Self.insert(buffer, seq) }  // a 200 ms burst after a stall
        #expect(Self.pop(buffer) == .packet(8))  // 0-7 discarded: 40 ms left
        #expect(Self.pop(buffer) == .packet(9))
        #expect(buffer.counters.packetsDiscarded == 8)
        #expect(Self.pop(buffer) == .empty)
    }

    @Test func farJumpsResynchronize() throws {
        let buffer = try AudioJitterBuffer()
        for seq: UInt16 in [1, 2, 3] { try Self.insert(buffer, seq) }
        #expect(Self.pop(buffer) == .packet(1))
        // A jump of 1000 (beyond the 32-slot window): start over on it.
        #expect(try Self.insert(buffer, 1003) == .resynchronized)
        try Self.insert(buffer, 1004)
        #expect(Self.pop(buffer) == .packet(1003))
        // A sender restarting 20000 back: "late" until more than a window of them came in a row.
        var results: [AudioJitterBuffer.Insertion] = []
        for seq: UInt16 in 40000..<40040 { results.append(try Self.insert(buffer, seq &- 20000 &- 20000)) }
        #expect(results.prefix(32).allSatisfy { $0 == .late } && results.contains(.resynchronized))
        #expect(buffer.counters.resynchronizations == 2)
        // Resynchronized on 32; 32...39 is 160 ms, above the maximum: cut back to 40 ms.
        #expect(Self.pop(buffer) == .packet(38))
    }

    @Test func badPayloadsAndConfigurationsAreTypedErrors() throws {
        let buffer = try AudioJitterBuffer(.init(maximumPacketSize: 4))
        #expect(throws: RTPError.truncated(.payload, needed: 1, available: 0)) {
            try [UInt8]().withUnsafeBytes { try buffer.insert(sequenceNumber: 1, timestamp: 0, payload: $0) }
        }
        #expect(throws: RTPError.invalidField(.payload, field: "audio packet length", value: 5)) {
            try [UInt8](repeating: 1, count: 5).withUnsafeBytes {
                try buffer.insert(sequenceNumber: 1, timestamp: 0, payload: $0)
            }
        }
        #expect(throws: RTPError.valueOutOfRange(field: "jitter buffer capacity", value: 4)) {
            try AudioJitterBuffer(.init(capacity: 4))
        }
        #expect(throws: RTPError.self) { try AudioJitterBuffer(.init(frameDuration: .zero)) }
    }
}
