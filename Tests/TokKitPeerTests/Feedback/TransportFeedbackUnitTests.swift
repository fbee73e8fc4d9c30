import Testing
@testable import TokKitPeer
import TokKitRTP

/// The receive side of transport-wide CC alone, on a manual clock: arrivals recorded, messages at the interval.
@Suite struct TransportFeedbackUnitTests {
    @Test func reportsArrivalsOncePerIntervalNamingTheFirstStream() throws {
        var unit = try #require(TransportFeedback(extensionID: 3, senderSSRC: 9, interval: .milliseconds(50)))
        var out = RecordingOutput()
        #expect(!unit.isDue(now: ms(0)))
        for i in 0 ..< 10 where i != 4 {
            let packet = ReceivedRTP(ssrc: 0x55, sequenceNumber: UInt16(i), transportSequenceNumber: 1000 + UInt16(i))
            unit.received(packet, section: .audio, now: ms(UInt64(i) * 10), output: &out)
        }
        unit.received(ReceivedRTP(ssrc: 0x66, sequenceNumber: 0), section: .video, now: ms(95), output: &out)  // no number
        #expect(unit.isDue(now: ms(100)))
        unit.poll(now: ms(100), output: &out)
        guard case .transportWideFeedback(let feedback)? = out.rtcp.first?.first else {
            Issue.record("no feedback: \(out.rtcp)")
            return
        }
        #expect(feedback.senderSSRC == 9 && feedback.mediaSSRC == 0x55 && feedback.baseSequenceNumber == 1000)
        #expect(feedback.statuses.count == 10 && feedback.statuses[4] == .notReceived)
        #expect(!unit.isDue(now: ms(100)))

        unit.received(ReceivedRTP(ssrc: 0x55, sequenceNumber: 10, transportSequenceNumber: 1010), section: .audio,
                      now: ms(120), output: &out)
        unit.poll(now: ms(149), output: &out)  // within the interval: waits
        #expect(out.rtcp.count == 1)
        unit.poll(now: ms(150), output: &out)
        #expect(out.rtcp.count == 2 && unit.statistics.feedbackSent == 2 && unit.statistics.packetsRecorded == 10)
    }
}
