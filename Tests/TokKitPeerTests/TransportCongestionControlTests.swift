import Testing
@testable import TokKitPeer
import TokKitRTP

/// The send side of transport-wide CC without sockets: numbering, wrap, matching feedback, reporting.
@Suite struct TransportCongestionControlTests {
    @Test func numbersPacketsConsecutivelyAcrossTheWrapAndMatchesTheirFeedback() throws {
        var cc = try #require(TransportCongestionControl(bounds: 50_000 ... 2_000_000))
        cc.nextSequence = 65533
        let stamped = (0 ..< 5).map { i in cc.stamp(size: 1000 + i, now: 1_000 * Int64(i)) }
        #expect(stamped == [65533, 65534, 65535, 0, 1])
        #expect(cc.packetsStamped == 5)
        #expect(cc.estimate == nil)

        // The peer reports all five received 1 ms apart, plus one number we never used.
        let statuses = [RTCPTransportWideFeedback.PacketStatus](repeating: .receivedSmallDelta(4), count: 6)
        let feedback = RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 65533,
                                                 referenceTime: 1, feedbackPacketCount: 0, statuses: statuses)
        let reported = cc.received(feedback, now: 50_000)
        #expect(reported == 2_000_000)  // the first estimate is reported; it starts at the upper bound
        #expect(cc.estimate == 2_000_000)
        #expect(cc.estimator.packetCount == 5)
        #expect(cc.history.unknownReports == 1)
        // Nothing new: no report, no change.
        #expect(cc.received(feedback, now: 100_000) == nil)
        #expect(cc.estimator.packetCount == 5)
    }

    @Test func reportsOnlyChangesOfOnePercentOrMore() throws {
        var cc = try #require(TransportCongestionControl(bounds: 50_000 ... 2_000_000))
        var reports: [Int] = []
        var time: Int64 = 0
        // 2 s of packets every 10 ms, every other one lost (50 %): the loss-based estimate falls each 200 ms.
        for round in 0 ..< 40 {
            var statuses: [RTCPTransportWideFeedback.PacketStatus] = []
            let base = cc.nextSequence
            for i in 0 ..< 5 {
                _ = cc.stamp(size: 1200, now: time)
                time += 10_000
                statuses.append(i % 2 == 0 ? .receivedSmallDelta(40) : .notReceived)
            }
            let feedback = RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: base,
                                                     referenceTime: UInt32(round), feedbackPacketCount: 0,
                                                     statuses: statuses)
            if let r = cc.received(feedback, now: time) { reports.append(r) }
        }
        #expect(reports.first == 2_000_000)
        #expect(reports.count >= 5 && reports.count < 40, "\(reports)")
        #expect(zip(reports, reports.dropFirst()).allSatisfy { abs(Double($1 - $0)) >= 0.01 * Double($0) })
        #expect(cc.estimate! < 1_000_000 && cc.estimate == reports.last)
    }
}
