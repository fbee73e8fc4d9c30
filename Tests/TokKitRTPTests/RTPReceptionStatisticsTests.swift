import Testing
import TokKitRTP

@Suite struct RTPReceptionStatisticsTests {
    @discardableResult
    func feed(_ s: inout RTPReceptionStatistics, _ seqs: [UInt16]) -> [RTPReceptionStatistics.Verdict] {
        seqs.map { s.update(sequenceNumber: $0, rtpTimestamp: UInt32($0) * 960, arrival: UInt32($0) * 960) }
    }

    @Test func newSourceNeedsTwoSequentialPackets() {
        var s = RTPReceptionStatistics(ssrc: 9)
        #expect(feed(&s, [100, 200, 201, 202]) == [.probation, .probation, .accepted, .accepted])
        #expect(s.received == 3)
        #expect(s.expected == 3)
        #expect(s.cumulativeLost == 0)
    }

    @Test func countsLossAndFractionPerInterval() {
        var s = RTPReceptionStatistics(ssrc: 9)
        feed(&s, [10, 11, 12, 14, 15, 18, 19])  // 13, 16, 17 lost of 10 ... 19
        var block = s.makeReportBlock(lastSenderReport: 0xAABB_CCDD, delaySinceLastSenderReport: 0x1_0000)
        #expect(block.ssrc == 9)
        #expect(block.cumulativeLost == 3)
        #expect(block.extendedHighestSequenceNumber == 19)
        #expect(block.fractionLost == UInt8((3 << 8) / 10))
        #expect(block.lastSenderReport == 0xAABB_CCDD)
        feed(&s, [20, 21, 22, 23])  // nothing lost in this interval
        block = s.makeReportBlock()
        #expect(block.fractionLost == 0)
        #expect(block.cumulativeLost == 3)
    }

    @Test func extendsAcrossTheWrapAndToleratesReordering() {
        var s = RTPReceptionStatistics(ssrc: 1)
        let verdicts = feed(&s, [65533, 65534, 65535, 0, 65532, 1, 1])  // a late packet and a duplicate
        #expect(verdicts.allSatisfy { $0 == .accepted || $0 == .probation })
        #expect(s.extendedHighestSequenceNumber == 0x1_0001)
        let block = s.makeReportBlock()
        #expect(block.extendedHighestSequenceNumber == 0x1_0001)
        // Expected 65533 ... 65537 = 5, received 7 (duplicates count, as in A.3): negative loss.
        #expect(block.cumulativeLost == -2)
        #expect(block.fractionLost == 0)
    }

    @Test func largeJumpRestartsOnlyWhenConfirmed() {
        var s = RTPReceptionStatistics(ssrc: 1)
        feed(&s, [1, 2, 3])
        #expect(feed(&s, [40000]) == [.rejected])
        #expect(s.extendedHighestSequenceNumber == 3)
        #expect(feed(&s, [4]) == [.accepted])  // the stray packet did not disturb the sequence
        #expect(feed(&s, [50000, 50001]) == [.rejected, .accepted])  // the source restarted
        #expect(s.extendedHighestSequenceNumber == 50001)
        #expect(s.received == 1)
    }
}
