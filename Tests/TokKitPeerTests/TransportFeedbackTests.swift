import Synchronization
import Testing
@testable import TokKitPeer
import TokKitRTP
import TokKitSDP

/// Transport-wide congestion control feedback between two peer connections over 127.0.0.1: negotiation, and
/// RTP carrying the transport-wide sequence number reported back to its sender.
@Suite("TransportFeedback") struct TransportFeedbackTests {
    /// An RTP packet of `ssrc` with the transport-wide sequence number in a one-byte extension element `id`.
    static func packet(ssrc: UInt32, sequenceNumber: UInt16, transportSequence: UInt16, id: UInt8) throws -> [UInt8] {
        var header = RTPHeader(payloadType: 111, sequenceNumber: sequenceNumber, timestamp: 960 * UInt32(sequenceNumber),
                               ssrc: ssrc)
        header.setExtension(id: id, [UInt8(transportSequence >> 8), UInt8(transportSequence & 0xFF)])
        var bytes = [UInt8](repeating: 0, count: 100)
        let payload: [UInt8] = [0xF8, 0xFF, 0xFE]
        let length = try payload.withUnsafeBytes { p in try bytes.withUnsafeMutableBytes { try header.write(payload: p, into: $0) } }
        return Array(bytes.prefix(length))
    }

    @Test func isNegotiatedByDefaultAndLeftOutWhenEitherSideDoesNotWantIt() async throws {
        for (offererWants, answererWants) in [(true, true), (true, false), (false, true)] {
            let interval: (Bool) -> Duration? = { $0 ? .milliseconds(50) : nil }
            let offerer = try PeerConnection(configuration: PeerConfiguration(
                rtcpInterval: nil, transportFeedbackInterval: interval(offererWants)))
            let answerer = try PeerConnection(configuration: PeerConfiguration(
                rtcpInterval: nil, transportFeedbackInterval: interval(answererWants)))
            let offer = try offerer.createOffer()
            let answer = try answerer.createAnswer(for: offer)
            try offerer.setRemoteDescription(answer)
            let both = offererWants && answererWants
            #expect(offer.sdp.contains("transport-cc") == offererWants)
            #expect(answer.sdp.contains("transport-cc") == both)
            #expect(offerer.transportFeedbackStatistics.extensionID == (both ? 3 : nil))
            #expect(answerer.transportFeedbackStatistics.extensionID == (both ? 3 : nil))
            offerer.close()
            answerer.close()
        }
    }

    @Test func receivedPacketsAreReportedToTheSenderWithTheirLosses() async throws {
        let (offerer, answerer, pumps) = try await RTCPFeedbackTests.connectedPair()
        let id = try #require(answerer.transportFeedbackStatistics.extensionID)

        // The offerer's audio as the answerer would receive it after SRTP: transport-wide numbers 65500 ... 65579
        // (across the wrap), 65510 ... 65514 lost.
        for i in 0 ..< 80 where !(10 ..< 15).contains(i) {
            let bytes = try Self.packet(ssrc: 0x1111, sequenceNumber: UInt16(i), transportSequence: 65500 &+ UInt16(i),
                                        id: id)
            bytes.withUnsafeBytes { answerer.receiveRTP($0) }
        }
        let reported = await PeerConnectionTests.poll(.seconds(20)) {
            offerer.transportFeedbackStatistics.packetsReportedByPeer >= 80
        }
        let sent = answerer.transportFeedbackStatistics, got = offerer.transportFeedbackStatistics
        #expect(reported, "answerer \(sent), offerer \(got)")
        #expect(sent.packetsRecorded == 75 && sent.feedbackSent >= 1)
        #expect(got.feedbackReceived == sent.feedbackSent)
        #expect(got.packetsReportedByPeer == 80 && got.packetsReportedLostByPeer == 5, "\(got)")
        // The answerer's own media statistics saw the audio too (the recorder does not consume packets).
        #expect(answerer.statistics(.audio).packetsReceived == 75)

        offerer.close()
        answerer.close()
        for p in pumps { await p.value }
    }

    @Test func feedbackKeepsItsIntervalFromTheReceivePathAndTheFallbackTimerReportsTheLastPackets() async throws {
        let (offerer, answerer, pumps) = try await RTCPFeedbackTests.connectedPair()  // 50 ms interval
        let id = try #require(answerer.transportFeedbackStatistics.extensionID)
        // 1 s of audio at 100 packets a second: the receive path sends a message whenever 50 ms have passed, about
        // 20 (the fallback timer alone, at 200 ms, would send about 5).
        let start = ContinuousClock.now
        for i in 0 ..< 100 {
            let bytes = try Self.packet(ssrc: 0x1111, sequenceNumber: UInt16(i), transportSequence: UInt16(i), id: id)
            bytes.withUnsafeBytes { answerer.receiveRTP($0) }
            try await Task.sleep(until: start + .milliseconds(10 * (i + 1)))
        }
        let elapsed = ContinuousClock.now - start
        let sent = answerer.transportFeedbackStatistics.feedbackSent
        // Messages are at least 50 ms apart, and at most 50 ms plus one packet gap (10 ms when on time). On a loaded
        // machine the sleeps overshoot and packets come further apart: the receive path then sends at most one
        // message per packet.
        let intervals = elapsed / .milliseconds(50)
        #expect(Double(sent) <= intervals + 1 && Double(sent) >= min(intervals, 100) / 2, "\(sent) messages in \(elapsed)")
        // The last packets, received less than 50 ms after the message before them, go out with the timer.
        #expect(await PeerConnectionTests.poll(.seconds(5)) {
            offerer.transportFeedbackStatistics.packetsReportedByPeer == 100
        }, "\(offerer.transportFeedbackStatistics)")
        offerer.close()
        answerer.close()
        for p in pumps { await p.value }
    }
}
