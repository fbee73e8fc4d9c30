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
        var limiter = RetransmissionRateLimiter()
        for s: UInt16 in 100 ..< 120 { try Self.packet(s).withUnsafeBytes { unit.store($0, now: 0) } }
        var out = RecordingOutput()
        // 112 and 118 are in the history (the last 8: 112 ... 119); 105 fell out; 130 was never sent.
        unit.received(Self.nack([105, 112, 118, 130]), now: ms(0), limiter: &limiter, output: &out)
        #expect(try out.resent == [Self.packet(112), Self.packet(118)])
        #expect(unit.nacksReceived == 1 && unit.retransmissions == 2)
    }

    @Test func nacksAboutAnotherStreamOrFailedSendsAreNotCounted() throws {
        var unit = try #require(NACKResponder(ssrc: 0xCAFE))
        var limiter = RetransmissionRateLimiter()
        try Self.packet(1).withUnsafeBytes { unit.store($0, now: 0) }
        var out = RecordingOutput()
        unit.received(Self.nack(ssrc: 0xF00D, [1]), now: ms(0), limiter: &limiter, output: &out)
        #expect(out.resent.isEmpty && unit.nacksReceived == 0)
        out.succeeds = false
        unit.received(Self.nack([1]), now: ms(0), limiter: &limiter, output: &out)
        #expect(out.resent.count == 1 && unit.nacksReceived == 1 && unit.retransmissions == 0)
    }

    /// A receiver repeats its NACK until the packet arrives (TokKit's 20 ms apart at first). Without congestion every
    /// request is answered; while the path is congested, within a round trip of its last retransmission a packet
    /// is not sent again, after it it is; a round trip longer than the minimum from the receiver reports is waited
    /// out in full.
    @Test func aPacketIsNotSentAgainWithinARoundTripOfItsLastRetransmissionWhileThePathIsCongested() throws {
        var unit = try #require(NACKResponder(ssrc: 0xCAFE))
        var limiter = RetransmissionRateLimiter()
        for s: UInt16 in 1 ... 3 { try Self.packet(s).withUnsafeBytes { unit.store($0, now: 0) } }
        var out = RecordingOutput()
        for t: UInt64 in stride(from: 0, through: 60, by: 20) { unit.received(Self.nack([1]), now: ms(t), limiter: &limiter, output: &out) }
        #expect(out.resent.count == 4 && unit.retransmissionsSuppressed == 0)  // not congested: every request
        unit.pathCongested = true
        unit.received(Self.nack([1]), now: ms(80), limiter: &limiter, output: &out)  // 20 ms after its last retransmission
        #expect(out.resent.count == 4 && unit.retransmissionsSuppressed == 1)
        out.resent.removeAll()
        unit = try #require(NACKResponder(ssrc: 0xCAFE))
        unit.pathCongested = true
        for s: UInt16 in 1 ... 3 { try Self.packet(s).withUnsafeBytes { unit.store($0, now: 0) } }
        #expect(unit.resendInterval == NACKResponder.minimumResendInterval)  // no round trip known yet
        unit.received(Self.nack([2]), now: ms(1_000), limiter: &limiter, output: &out)
        for t: UInt64 in stride(from: 1_020, through: 1_080, by: 20) {
            unit.received(Self.nack([2, 3]), now: ms(t), limiter: &limiter, output: &out)
        }
        // 2 once; 3 the first time it was asked for (at 1,020 ms), not again at 1,040-1,080.
        #expect(try out.resent == [Self.packet(2), Self.packet(3)])
        #expect(unit.retransmissions == 2 && unit.retransmissionsSuppressed == 7)
        unit.received(Self.nack([2, 3]), now: ms(1_100), limiter: &limiter, output: &out)  // 100 ms after 2's retransmission: due
        #expect(try out.resent.suffix(1) == [Self.packet(2)])
        unit.received(Self.nack([3]), now: ms(1_120), limiter: &limiter, output: &out)  // 100 ms after 3's
        #expect(try out.resent.suffix(1) == [Self.packet(3)] && unit.retransmissions == 4)

        // A 250 ms round trip: the next retransmission of 2 waits for it.
        unit.roundTripTime = .milliseconds(250)
        unit.received(Self.nack([2]), now: ms(1_300), limiter: &limiter, output: &out)
        #expect(unit.retransmissions == 4)
        unit.received(Self.nack([2]), now: ms(1_350), limiter: &limiter, output: &out)
        #expect(unit.retransmissions == 5)
        // A wrong round trip (a peer's bad DLSR) holds a packet back for a second at most.
        unit.roundTripTime = .seconds(3_600)
        #expect(unit.resendInterval == NACKResponder.maximumResendInterval)
        // A packet stored again under the same number (the history wrapped) starts afresh.
        try Self.packet(2).withUnsafeBytes { unit.store($0, now: 0) }
        unit.received(Self.nack([2]), now: ms(1_360), limiter: &limiter, output: &out)
        #expect(unit.retransmissions == 6)
    }
    /// Retransmissions are held to a rate, at most 100 ms owed ahead: at 48 kb/s (9 ms for each 16-byte packet, 54
    /// bytes on the wire) the ten asked for at once fit; at 24 kb/s (18 ms each) five, three more 50 ms later, and
    /// the last two once the time owed is paid off. Without a rate, all.
    @Test func retransmissionsAreHeldToThePathsEstimate() throws {
        var unit = try #require(NACKResponder(ssrc: 0xCAFE))
        var limiter = RetransmissionRateLimiter()
        for s: UInt16 in 1 ... 10 { try Self.packet(s).withUnsafeBytes { unit.store($0, now: 0) } }
        var out = RecordingOutput()
        unit.received(Self.nack(Array(1 ... 10)), now: ms(0), limiter: &limiter, output: &out)
        #expect(out.resent.count == 10)
        unit.pathEstimate = 48_000
        unit.received(Self.nack(Array(1 ... 10)), now: ms(1_000), limiter: &limiter, output: &out)
        #expect(out.resent.count == 20 && unit.retransmissionsSuppressed == 0)
        unit.pathEstimate = 24_000
        unit.received(Self.nack(Array(1 ... 10)), now: ms(2_000), limiter: &limiter, output: &out)
        #expect(try out.resent.suffix(5) == (1 ... 5).map { try Self.packet($0) })
        #expect(unit.retransmissionsSuppressed == 5)
        unit.received(Self.nack(Array(6 ... 10)), now: ms(2_050), limiter: &limiter, output: &out)  // 40 ms owed
        #expect(try out.resent.suffix(3) == (6 ... 8).map { try Self.packet($0) })
        #expect(out.resent.count == 28 && unit.retransmissionsSuppressed == 7)
        unit.received(Self.nack([9, 10]), now: ms(2_200), limiter: &limiter, output: &out)  // paid off at 2,144 ms
        #expect(try out.resent.suffix(2) == (9 ... 10).map { try Self.packet($0) })
    }

    /// Two streams (simulcast layers) answering with one limiter share its rate: at 24 kb/s the first answers five
    /// of its ten, and the second none until that time is paid off; each with a limiter of its own, both five.
    @Test func streamsSharingALimiterShareItsRate() throws {
        func packet(_ sequence: UInt16, ssrc: UInt32) throws -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: 20)
            let header = RTPHeader(payloadType: 96, sequenceNumber: sequence, timestamp: 0, ssrc: ssrc)
            let payload: [UInt8] = [UInt8(truncatingIfNeeded: sequence), 1, 2, 3]
            let length = try payload.withUnsafeBytes { p in
                try bytes.withUnsafeMutableBytes { try header.write(payload: p, into: $0) }
            }
            return Array(bytes.prefix(length))
        }
        for shared in [true, false] {
            var units = try [0xCAFE, 0xBEEF].map { ssrc in try #require(NACKResponder(ssrc: UInt32(ssrc))) }
            var outs = [RecordingOutput(), RecordingOutput()]
            var limiter = RetransmissionRateLimiter()
            var own = [RetransmissionRateLimiter(), RetransmissionRateLimiter()]
            for i in units.indices {
                for s: UInt16 in 1 ... 10 {
                    try packet(s, ssrc: units[i].ssrc).withUnsafeBytes { units[i].store($0, now: 0) }
                }
                units[i].pathEstimate = 24_000
                let nack = Self.nack(ssrc: units[i].ssrc, Array(1 ... 10))
                if shared {
                    units[i].received(nack, now: ms(1_000), limiter: &limiter, output: &outs[i])
                } else {
                    units[i].received(nack, now: ms(1_000), limiter: &own[i], output: &outs[i])
                }
            }
            #expect(outs.map(\.resent.count) == (shared ? [5, 0] : [5, 5]), "shared: \(shared)")
        }
    }

    /// A VP8 packet: the first of a key frame, the first of a delta frame, or a later one of either.
    static func vp8Packet(_ sequence: UInt16, startsKeyframe: Bool = false, startsFrame: Bool = false) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 40)
        let header = RTPHeader(payloadType: 96, sequenceNumber: sequence, timestamp: 0, ssrc: 0xCAFE)
        // Descriptor: S = 1 (0x10) on a frame's first packet, PID 0; then the payload header's P bit (0: key frame).
        let payload: [UInt8] = [startsKeyframe || startsFrame ? 0x10 : 0x00, startsKeyframe ? 0x00 : 0x01, 2, 3]
        let length = try payload.withUnsafeBytes { p in try bytes.withUnsafeMutableBytes { try header.write(payload: p, into: $0) } }
        return Array(bytes.prefix(length))
    }

    /// While the estimator has cut for an overflowing queue, copies are held to the room the path has beside the
    /// media (24 kb/s: 18 ms for each 54-byte packet on the wire, five within the 100 ms owed at most), and a repair
    /// held back asks our encoder for a key frame at once. On random loss (congested, not overloaded) the estimate
    /// is the rate and nothing is asked; for simulcast nothing is asked either.
    @Test func whileOverloadedCopiesAreHeldToTheRoomAndARepairHeldBackAsksForAKeyframe() throws {
        for (overloaded, refreshes) in [(true, true), (false, true), (true, false)] {
            var unit = try #require(NACKResponder(ssrc: 0xCAFE))
            var limiter = RetransmissionRateLimiter()
            unit.refreshesDeclinedRepairs = refreshes
            for s: UInt16 in 1 ... 10 { try Self.packet(s).withUnsafeBytes { unit.store($0, now: 0) } }
            (unit.pathCongested, unit.pathOverloaded) = (true, overloaded)
            (unit.pathEstimate, unit.pathRoom) = (1_000_000, 24_000)
            var out = RecordingOutput()
            unit.received(Self.nack(Array(1 ... 10)), now: ms(0), limiter: &limiter, output: &out)
            #expect(out.resent.count == (overloaded ? 5 : 10))
            let asked = out.notifications == [.init(section: .video, feedback: .repairsDeclined)]
            #expect(asked == (overloaded && refreshes) && unit.declinedRepairReports == (asked ? 1 : 0))
            #expect(out.notifications.isEmpty != asked)
        }
    }

    /// The peer asking for more than a quarter of our last packets is overload too (its NACKs come before the
    /// estimator's cut): copies are held to the room, but no key frame is asked for (the encoder is not cut yet).
    @Test func heavyLossSeenInTheRequestsHoldsCopiesToTheRoom() throws {
        var unit = try #require(NACKResponder(ssrc: 0xCAFE))
        var limiter = RetransmissionRateLimiter()
        for s: UInt16 in 1 ... 20 { try Self.packet(s).withUnsafeBytes { unit.store($0, now: ms(UInt64(s) * 10)) } }
        (unit.pathEstimate, unit.pathRoom) = (1_000_000, 24_000)
        var out = RecordingOutput()
        unit.received(Self.nack([2, 4, 6]), now: ms(200), limiter: &limiter, output: &out)  // 3 of 20: not heavy, all sent
        #expect(out.resent.count == 3)
        unit.received(Self.nack([1, 8, 10, 12, 14, 16, 18, 20]), now: ms(205), limiter: &limiter, output: &out)  // 11 of 20: five more
        #expect(out.resent.count == 8 && unit.retransmissionsSuppressed == 3 && out.notifications.isEmpty)
    }

    /// While overloaded, packets sent before the last key frame are not sent again: the peer skips to the key frame.
    /// Otherwise they are.
    @Test func whileOverloadedPacketsBeforeTheLastKeyframeAreNotSentAgain() throws {
        for overloaded in [true, false] {
            var unit = try #require(NACKResponder(ssrc: 0xCAFE))
            var limiter = RetransmissionRateLimiter()
            let packets = try [Self.vp8Packet(1, startsFrame: true), Self.vp8Packet(2), Self.vp8Packet(3),
                               Self.vp8Packet(4, startsKeyframe: true), Self.vp8Packet(5), Self.vp8Packet(6)]
            for p in packets { p.withUnsafeBytes { unit.store($0, now: 0) } }
            #expect(unit.lastKeyframeStart == 4)
            unit.pathOverloaded = overloaded
            var out = RecordingOutput()
            unit.received(Self.nack([2, 3, 5]), now: ms(0), limiter: &limiter, output: &out)
            #expect(out.resent == (overloaded ? [packets[4]] : [packets[1], packets[2], packets[4]]))
        }
    }

    /// A picture loss is reported once until the next key frame is sent (or for ``NACKResponder/refreshWait``): a
    /// repair held back again before then asks for nothing more.
    @Test func aRepairHeldBackAsksForOneKeyframeUntilOneIsSent() throws {
        var unit = try #require(NACKResponder(ssrc: 0xCAFE))
        var limiter = RetransmissionRateLimiter()
        for s: UInt16 in 1 ... 10 { try Self.vp8Packet(s, startsFrame: true).withUnsafeBytes { unit.store($0, now: 0) } }
        (unit.pathCongested, unit.pathOverloaded, unit.pathEstimate, unit.pathRoom) = (true, true, 1_000_000, 24_000)
        var out = RecordingOutput()
        unit.received(Self.nack(Array(1 ... 10)), now: ms(0), limiter: &limiter, output: &out)  // five held back: asked
        unit.received(Self.nack(Array(6 ... 10)), now: ms(10), limiter: &limiter, output: &out)  // held back again: not again
        #expect(out.notifications.count == 1 && unit.declinedRepairReports == 1)
        try Self.vp8Packet(11, startsKeyframe: true).withUnsafeBytes { unit.store($0, now: ms(20)) }
        for s: UInt16 in 12 ... 21 { try Self.vp8Packet(s).withUnsafeBytes { unit.store($0, now: ms(20)) } }
        unit.received(Self.nack(Array(12 ... 21)), now: ms(21), limiter: &limiter, output: &out)  // ~87 ms still owed: asked again
        #expect(out.notifications.count == 2 && out.resent.count == 6)
        unit.received(Self.nack(Array(12 ... 21)), now: ms(300), limiter: &limiter, output: &out)  // five sent, five held back
        #expect(out.notifications.count == 2 && out.resent.count == 11)
        unit.received(Self.nack(Array(12 ... 21)), now: ms(600), limiter: &limiter, output: &out)  // no key frame for refreshWait
        #expect(out.notifications.count == 3 && unit.declinedRepairReports == 3 && out.resent.count == 16)
    }

    /// The last key frame is forgotten once it has left the history: 32,768 packets later its number would read as
    /// newer than every packet held, and no repair would go out while overloaded.
    @Test func theLastKeyframeIsForgottenOnceItLeftTheHistory() throws {
        var unit = try #require(NACKResponder(ssrc: 0xCAFE, capacity: 8))
        try Self.vp8Packet(100, startsKeyframe: true).withUnsafeBytes { unit.store($0, now: 0) }
        for s: UInt16 in 101 ... 107 { try Self.vp8Packet(s).withUnsafeBytes { unit.store($0, now: 0) } }
        #expect(unit.lastKeyframeStart == 100)
        try Self.vp8Packet(108).withUnsafeBytes { unit.store($0, now: 0) }
        #expect(unit.lastKeyframeStart == nil)
    }

    /// Without transport-wide feedback (no estimate) the requests' share does not count: nothing changes for a peer
    /// that does not negotiate it.
    @Test func withoutAnEstimateHeavyLossChangesNothing() throws {
        var unit = try #require(NACKResponder(ssrc: 0xCAFE))
        var limiter = RetransmissionRateLimiter()
        for s: UInt16 in 1 ... 20 { try Self.packet(s).withUnsafeBytes { unit.store($0, now: ms(UInt64(s) * 10)) } }
        var out = RecordingOutput()
        for t: UInt64 in [200, 220] { unit.received(Self.nack(Array(1 ... 10)), now: ms(t), limiter: &limiter, output: &out) }
        #expect(out.resent.count == 20 && unit.retransmissionsSuppressed == 0)  // every request answered
    }
}
