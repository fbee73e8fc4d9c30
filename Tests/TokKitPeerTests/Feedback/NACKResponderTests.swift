import Testing
@testable import TokKitPeer
import TokKitRTP

/// Retransmission from the send history, answering NACKs (RFC 4585 §6.2.1).
@Suite struct NACKResponderTests {
    /// A 20-byte "packet" of our video whose RTP sequence number is `sequence`.
    static func packet(_ sequence: UInt16) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 20)
        let header = RTPHeader(payloadType: 96, sequenceNumber: sequence, timestamp: 0, ssrc: 0xCAFE)
        let payload: [UInt8] = [UInt8(truncatingIfNeeded: sequence), 1, 2, 3]
        let length = try payload.withUnsafeBytes { p in try bytes.withUnsafeMutableBytes { try header.write(payload: p, into: $0) } }
        return Array(bytes.prefix(length))
    }

    static func nack(ssrc: UInt32 = 0xCAFE, _ lost: [UInt16]) -> RTCPPacket {
        .genericNACK(RTCPGenericNACK(senderSSRC: 1, mediaSSRC: ssrc, lostSequenceNumbers: lost))
    }

    @Test func sendsAgainExactlyThePacketsAskedForThatItStillHas() throws {
        var unit = try #require(NACKResponder(ssrc: 0xCAFE, capacity: 8))
        for s: UInt16 in 100 ..< 120 { try Self.packet(s).withUnsafeBytes { unit.store($0) } }
        var out = RecordingOutput()
        // 112 and 118 are in the history (the last 8: 112 ... 119); 105 fell out; 130 was never sent.
        unit.received(Self.nack([105, 112, 118, 130]), now: ms(0), output: &out)
        #expect(try out.resent == [Self.packet(112), Self.packet(118)])
        #expect(unit.nacksReceived == 1 && unit.retransmissions == 2)
    }

    @Test func nacksAboutAnotherStreamOrFailedSendsAreNotCounted() throws {
        var unit = try #require(NACKResponder(ssrc: 0xCAFE))
        try Self.packet(1).withUnsafeBytes { unit.store($0) }
        var out = RecordingOutput()
        unit.received(Self.nack(ssrc: 0xF00D, [1]), now: ms(0), output: &out)
        #expect(out.resent.isEmpty && unit.nacksReceived == 0)
        out.succeeds = false
        unit.received(Self.nack([1]), now: ms(0), output: &out)
        #expect(out.resent.count == 1 && unit.nacksReceived == 1 && unit.retransmissions == 0)
    }
}
