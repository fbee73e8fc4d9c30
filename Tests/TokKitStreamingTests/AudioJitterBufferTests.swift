import Testing
@testable import TokKitStreaming

@Suite("AudioJitterBuffer") struct AudioJitterBufferTests {
    /// What `next()` gave, as plain values: a packet's first byte, a loss (with the FEC source's first byte),
    /// or nothing.
    enum Step: Equatable { case packet(UInt8), missing(UInt8?), none }

    static func step(_ buffer: inout AudioJitterBuffer) -> Step {
        switch buffer.next() {
        case .packet(let p): .packet(p[0])
        case .missing(let next): .missing(next?[0])
        case nil: .none
        }
    }

    static func insert(_ buffer: inout AudioJitterBuffer, _ seq: UInt16) -> Bool {
        let byte = UInt8(truncatingIfNeeded: seq)
        return withUnsafeBytes(of: byte) { buffer.insert(sequenceNumber: seq, timestamp: UInt32(seq) * 960, payload: $0) }
    }

    @Test func startsAfterTwoPacketsAndReordersAcrossTheWrap() {
        var b = AudioJitterBuffer()
        #expect(Self.insert(&b, 65_535))
        #expect(Self.step(&b) == .none, "one packet is not enough to start")
        #expect(Self.insert(&b, 1))
        #expect(Self.insert(&b, 0))
        #expect(!Self.insert(&b, 0), "duplicate")
        #expect(Self.step(&b) == .packet(255))
        #expect(Self.step(&b) == .packet(0))
        #expect(Self.step(&b) == .packet(1))
        #expect(Self.step(&b) == .none, "ran dry")
    }

    @Test func aLossIsReportedWithTheNextPacketForFEC() {
        var b = AudioJitterBuffer()
        for s: UInt16 in [10, 11, 13, 15] { #expect(Self.insert(&b, s)) }
        #expect(Self.step(&b) == .packet(10))
        #expect(Self.step(&b) == .packet(11))
        #expect(Self.step(&b) == .missing(13))
        #expect(Self.step(&b) == .packet(13))
        #expect(Self.step(&b) == .missing(15))
        #expect(Self.step(&b) == .packet(15))
        #expect(!Self.insert(&b, 12), "late")
        #expect(b.latePackets == 1)
    }

    @Test func aJumpRestartsAndBadPayloadsAreRefused() {
        var b = AudioJitterBuffer()
        #expect(Self.insert(&b, 100) && Self.insert(&b, 101))
        #expect(Self.step(&b) == .packet(100))
        #expect(Self.insert(&b, 5_000) && Self.insert(&b, 5_001))
        #expect(Self.step(&b) == .packet(UInt8(truncatingIfNeeded: 5_000)))
        let big = [UInt8](repeating: 1, count: 2_000)
        let tooLarge = big.withUnsafeBytes { b.insert(sequenceNumber: 5_002, timestamp: 0, payload: $0) }
        let empty = b.insert(sequenceNumber: 5_002, timestamp: 0, payload: UnsafeRawBufferPointer(start: nil, count: 0))
        #expect(!tooLarge && !empty)
    }
}
