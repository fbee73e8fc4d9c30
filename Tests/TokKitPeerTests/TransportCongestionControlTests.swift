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
        // The first estimate is reported: it starts at the upper bound; the video's share leaves its packet headers.
        #expect(cc.estimate == 2_000_000)
        #expect(reported == Int(2_000_000 * TransportCongestionControl.videoPayloadShare))
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
        #expect(reports.first == Int(2_000_000 * TransportCongestionControl.videoPayloadShare))
        #expect(reports.count >= 5 && reports.count < 40, "\(reports)")
        #expect(zip(reports, reports.dropFirst()).allSatisfy { abs(Double($1 - $0)) >= 0.01 * Double($0) })
        #expect(cc.estimate! < 1_000_000 && cc.videoShare(of: cc.estimate!, now: time) == reports.last)
    }

    /// The estimate covers audio and video; the video is told what is left once the audio's packets, counted on
    /// the wire, have their share: 50 Opus packets a second of 200 RTP bytes (238 on the wire, 95.2 kb/s) leave
    /// (500 − 95.2) × 0.96 kb/s of a 500 kb/s estimate. Audio without transport-wide numbers is in neither.
    @Test func theVideoIsToldWhatTheAudioLeavesOfTheEstimate() throws {
        for audioNumbered in [true, false] {
            var cc = try #require(TransportCongestionControl(bounds: 50_000 ... 500_000))
            cc.setOffset(20, for: .video)
            cc.setOffset(audioNumbered ? 20 : nil, for: .audio)
            var time: UInt64 = 1_000_000_000
            var statuses: [RTCPTransportWideFeedback.PacketStatus] = []
            let base = cc.nextSequence
            for i in 0 ..< 100 {  // 2 s of audio every 20 ms, a video packet every 20 ms
                let audio = cc.stamp(.audio, length: 200, now: time)
                #expect((audio != nil) == audioNumbered)
                // Each packet arrives as far after the one before as it was sent (10 ms apart, 20 ms without audio).
                if audio != nil { statuses.append(.receivedSmallDelta(i == 0 ? 4 : 40)) }
                _ = cc.stamp(.video, length: 1_000, now: time + 10_000_000)
                statuses.append(.receivedSmallDelta(audioNumbered ? 40 : 80))
                time += 20_000_000
            }
            let feedback = RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: base,
                                                     referenceTime: 1, feedbackPacketCount: 0,
                                                     statuses: statuses)
            let report = cc.received(feedback, now: Int64(time / 1000))
            let reported = try #require(report)
            #expect(cc.estimate == 500_000)
            let expected = (500_000 - (audioNumbered ? 95_200 : 0)) * TransportCongestionControl.videoPayloadShare
            #expect(abs(Double(reported) - expected) < 4_000, "\(reported) vs \(expected)")
            // Never under the estimator's minimum, however much the audio takes.
            #expect(cc.videoShare(of: 60_000, now: Int64(time / 1000)) == (audioNumbered ? 50_000 : 57_600))
        }
    }

    /// Retransmissions take their part of the video's share, measured on the wire over the last second, up to
    /// half of it: none, one video packet in five resent (the encoder gets 80 %), four in five (it keeps 50 %).
    @Test(arguments: [(0, 1.0), (1, 0.8), (4, 0.5)])
    func retransmissionsTakeTheirPartOfTheVideosShareUpToHalf(resentOfFive: Int, left: Double) throws {
        var cc = try #require(TransportCongestionControl(bounds: 50_000 ... 500_000))
        cc.setOffset(20, for: .video)
        var time: UInt64 = 1_000_000_000
        for i in 0 ..< 100 {  // 1 s, a 1,000-byte packet every 10 ms
            #expect(cc.stamp(.video, length: 1_000, now: time, retransmission: i % 5 < resentOfFive) != nil)
            time += 10_000_000
        }
        let share = cc.videoShare(of: 500_000, now: Int64(time / 1000))
        let expected = 500_000 * left * TransportCongestionControl.videoPayloadShare
        #expect(abs(Double(share) - expected) < 2, "\(share) vs \(expected)")
        // Never under the estimator's minimum.
        #expect(cc.videoShare(of: 60_000, now: Int64(time / 1000)) == max(Int(60_000 * left * 0.96), 50_000))
    }

    /// The path counts as congested (retransmissions held to one a round trip) while the loss-based controller's
    /// last window lost more than 10 %: not at 5 % random loss, yes at 30 %, and no longer once a clean window
    /// follows.
    @Test func congestionIsLossOverTenPercentInTheLastWindow() throws {
        var cc = try #require(TransportCongestionControl(bounds: 50_000 ... 2_000_000))
        var time: Int64 = 0
        func feed(seconds: Int, lostOfTwenty: Int) {
            for round in 0 ..< seconds * 20 {  // 20 packets every 50 ms
                let base = cc.nextSequence
                var statuses: [RTCPTransportWideFeedback.PacketStatus] = []
                for i in 0 ..< 20 {
                    _ = cc.stamp(size: 1200, now: time)
                    time += 2_500
                    // The lost ones spread over the rounds: `lostOfTwenty` of every 20 packets × 20 rounds.
                    statuses.append((i + round) % 20 < lostOfTwenty ? .notReceived : .receivedSmallDelta(10))
                }
                let feedback = RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: base,
                                                         referenceTime: UInt32(round), feedbackPacketCount: 0,
                                                         statuses: statuses)
                _ = cc.received(feedback, now: time)
            }
        }
        #expect(!cc.congested)
        feed(seconds: 2, lostOfTwenty: 1)  // 5 %
        #expect(!cc.congested)
        feed(seconds: 2, lostOfTwenty: 6)  // 30 %
        #expect(cc.congested)
        feed(seconds: 2, lostOfTwenty: 0)
        #expect(!cc.congested)
    }

    /// The room for retransmissions while overloaded: what the path delivered lately less the media sent over the
    /// last second, at least the estimator's minimum. Sending at 1 Mb/s what arrives at 500 kb/s leaves none (the
    /// minimum); once the sender has been quiet for most of a second, most of what was delivered. No room without an
    /// estimate.
    @Test func theRoomIsWhatThePathDeliversBesideTheMedia() throws {
        var cc = try #require(TransportCongestionControl(bounds: 50_000 ... 2_000_000))
        cc.setOffset(20, for: .video)
        #expect(cc.retransmissionRoom(now: 0) == nil)
        var time: UInt64 = 1_000_000_000
        let base = cc.nextSequence
        var statuses: [RTCPTransportWideFeedback.PacketStatus] = []
        for i in 0 ..< 100 {  // 1 s: 1,212-byte packets (1,250 on the wire) every 10 ms, arriving 20 ms apart
            _ = cc.stamp(.video, length: 1_212, now: time)
            time += 10_000_000
            statuses.append(.receivedSmallDelta(i == 0 ? 0 : 80))  // 250 µs units
        }
        let feedback = RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: base,
                                                 referenceTime: 0, feedbackPacketCount: 0, statuses: statuses)
        _ = cc.received(feedback, now: Int64(time / 1000))
        let delivered = try #require(cc.estimator.receivedRate.recentBitsPerSecond)
        #expect(abs(delivered - 500_000) < 10_000, "\(delivered)")
        #expect(cc.retransmissionRoom(now: Int64(time / 1000)) == 50_000)
        let quiet = Int64(time / 1000) + 900_000
        let room = try #require(cc.retransmissionRoom(now: quiet))
        #expect(room > 300_000 && room <= delivered, "\(room)")
        // Delay grew, nothing was lost: no overflow cut; and the first feedback cuts no estimate, so no collapse.
        #expect(!cc.overloaded(now: quiet))
    }

    /// An over-use with a third of the packets lost is a cut for an overflowing queue: the path counts as overloaded
    /// for the second after it, then no longer.
    @Test func anOverUseWithHeavyLossOverloadsThePathForASecond() throws {
        var cc = try #require(TransportCongestionControl(bounds: 50_000 ... 2_000_000))
        cc.setOffset(20, for: .video)
        var time: UInt64 = 1_000_000_000
        let base = cc.nextSequence
        var statuses: [RTCPTransportWideFeedback.PacketStatus] = []
        var lastArrived: Int?
        for i in 0 ..< 100 {  // sent 10 ms apart, arriving 20 ms apart (a growing queue), every third lost
            _ = cc.stamp(.video, length: 1_212, now: time)
            time += 10_000_000
            if i % 3 == 1 {
                statuses.append(.notReceived)
            } else {
                statuses.append(.receivedSmallDelta(UInt8(lastArrived.map { (i - $0) * 80 } ?? 0)))
                lastArrived = i
            }
        }
        let feedback = RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: base,
                                                 referenceTime: 0, feedbackPacketCount: 0, statuses: statuses)
        let now = Int64(time / 1000)
        _ = cc.received(feedback, now: now)
        #expect(cc.estimator.delayBased.lastOverflowDecrease == now)
        #expect(cc.overloaded(now: now + 900_000))
        #expect(!cc.overloaded(now: now + 1_100_000))
    }

    /// A cut that takes the estimate under half of the media sent over the last second is a collapse: the path
    /// stopped carrying what we send, and counts as overloaded for a second. Sending 1 Mb/s that arrives at 400 kb/s
    /// (a growing queue, nothing lost): the cut to about 0.85 × 400 kb/s is one; sending 500 kb/s that arrives at
    /// 400 kb/s, the same cut is not.
    @Test(arguments: [(10_000_000 as UInt64, true), (20_000_000, false)])
    func aCutUnderHalfTheMediaOverloadsThePathForASecond(sendInterval: UInt64, collapses: Bool) throws {
        var cc = try #require(TransportCongestionControl(bounds: 50_000 ... 2_000_000))
        cc.setOffset(20, for: .video)
        var time: UInt64 = 1_000_000_000
        /// `count` 1,212-byte packets `sendInterval` apart, arriving `arrivalUnits` × 250 µs apart, then their
        /// feedback; returns its time (µs).
        func exchange(count: Int, arrivalUnits: UInt8) -> Int64 {
            let base = cc.nextSequence
            var statuses: [RTCPTransportWideFeedback.PacketStatus] = []
            for i in 0 ..< count {
                _ = cc.stamp(.video, length: 1_212, now: time)
                time += sendInterval
                statuses.append(.receivedSmallDelta(i == 0 ? 0 : arrivalUnits))
            }
            let feedback = RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: base,
                                                     referenceTime: 0, feedbackPacketCount: 0, statuses: statuses)
            let now = Int64(time / 1000)
            _ = cc.received(feedback, now: now)
            return now
        }
        _ = exchange(count: 20, arrivalUnits: UInt8(sendInterval / 250_000))  // no queue: the estimate starts
        #expect(cc.estimate == 2_000_000)
        let now = exchange(count: 100, arrivalUnits: 100)  // 25 ms apart: 400 kb/s
        let estimate = try #require(cc.estimate)
        #expect(estimate < 450_000, "\(estimate)")  // cut from 2 Mb/s to about 0.85 × what arrives
        #expect(cc.estimator.delayBased.lastOverflowDecrease == nil)
        #expect(cc.overloaded(now: now + 900_000) == collapses)
        #expect(!cc.overloaded(now: now + 1_100_000))
    }
}
