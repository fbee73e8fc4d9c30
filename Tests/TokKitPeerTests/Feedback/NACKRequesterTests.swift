import Testing
@testable import TokKitPeer
import TokKitRTP

/// Gap detection and the NACK schedule (RFC 4585 §6.2.1), on a manual clock.
@Suite struct NACKRequesterTests {
    static func packet(_ sequence: UInt16) -> ReceivedRTP { ReceivedRTP(ssrc: 0xBEEF, sequenceNumber: sequence) }

    @Test func aGapIsRequestedAtOnceThenEvery20MillisecondsUntilItArrives() throws {
        var unit = try #require(NACKRequester(senderSSRC: 7))
        var out = RecordingOutput()
        for s: UInt16 in [10, 11, 14] { unit.received(Self.packet(s), section: .video, now: ms(0), output: &out) }
        #expect(out.nackedSequenceNumbers == [[12, 13]])
        guard case .genericNACK(let nack) = out.rtcp[0][0] else { Issue.record("not a NACK"); return }
        #expect(nack.senderSSRC == 7 && nack.mediaSSRC == 0xBEEF)

        unit.poll(now: ms(19), output: &out)  // too early for a retry
        #expect(out.nackedSequenceNumbers.count == 1)
        unit.poll(now: ms(20), output: &out)
        #expect(out.nackedSequenceNumbers.last == [12, 13])
        unit.received(Self.packet(12), section: .video, now: ms(25), output: &out)  // repaired
        unit.poll(now: ms(40), output: &out)
        #expect(out.nackedSequenceNumbers.last == [13])
        #expect(unit.messagesSent == 3 && unit.missingCount == 1)
    }

    /// Ten requests 20 ms apart (0-180 ms), four more 100 ms apart (280-580 ms), then none.
    @Test func givesUpAfterFourteenRequests() throws {
        var unit = try #require(NACKRequester(senderSSRC: 7))
        var out = RecordingOutput()
        unit.received(Self.packet(1), section: .video, now: ms(0), output: &out)
        unit.received(Self.packet(3), section: .video, now: ms(0), output: &out)
        var times: [UInt64] = [0]
        for step in 1 ... 40 {
            let before = out.nackedSequenceNumbers.count
            unit.poll(now: ms(UInt64(step) * 20), output: &out)
            if out.nackedSequenceNumbers.count > before { times.append(UInt64(step) * 20) }
        }
        #expect(times == Array(stride(from: 0, through: 180, by: 20)) + [280, 380, 480, 580])
        #expect(unit.missingCount == 0)
    }

    @Test func ignoresOtherSectionsAndAllocatesNoRequestWithoutAGap() throws {
        var unit = try #require(NACKRequester(senderSSRC: 7))
        var out = RecordingOutput()
        unit.received(Self.packet(1), section: .audio, now: ms(0), output: &out)
        unit.received(Self.packet(5), section: .audio, now: ms(0), output: &out)
        unit.received(Self.packet(1), section: nil, now: ms(0), output: &out)
        for s: UInt16 in 100 ..< 110 { unit.received(Self.packet(s), section: .video, now: ms(0), output: &out) }
        unit.poll(now: ms(100), output: &out)
        #expect(out.rtcp.isEmpty && unit.missingCount == 0)
    }
}
