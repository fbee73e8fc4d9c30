/// Reception statistics of one RTP source, as RFC 3550 appendix A describes them: sequence number validation with
/// probation (A.1), expected and lost packet counts (A.3) and interarrival jitter (A.8). It produces the report
/// block of a receiver report (§6.4.1).
///
/// Call ``update(sequenceNumber:rtpTimestamp:arrival:)`` for every packet received from the source, on the receiving
/// thread; ``makeReportBlock(lastSenderReport:delaySinceLastSenderReport:)`` when an RTCP report is due. A plain
/// value, allocation free.
public struct RTPReceptionStatistics: Hashable, Sendable {
    /// A.1: a jump ahead by at most this many packets is taken as loss, not as a restart of the source.
    public static let maximumDropout: UInt16 = 3000
    /// A.1: a packet at most this many behind is a duplicate or reordered packet.
    public static let maximumMisorder: UInt16 = 100
    /// A.1: sequential packets needed before a new source is valid.
    public static let minimumSequential = 2

    /// Verdict on one received packet.
    public enum Verdict: Hashable, Sendable {
        /// The packet counts: in order, after a gap, or a late/duplicate packet within the misorder window.
        case accepted
        /// The source is still on probation (A.1) and this packet did not confirm it yet.
        case probation
        /// A large jump; if the next packet follows it, the sequence restarts there (A.1 "bad_seq").
        case rejected
    }

    public let ssrc: UInt32
    private var maxSeq: UInt16 = 0
    private var cycles: UInt32 = 0
    private var baseSeq: UInt32 = 0
    private var badSeq: UInt32 = 0x1_0000 + 1  // RTP_SEQ_MOD + 1: no bad sequence pending
    private var probation: Int
    /// Packets accepted so far (duplicates included, as in A.3).
    public private(set) var received: UInt32 = 0
    private var expectedPrior: UInt32 = 0
    private var receivedPrior: UInt32 = 0
    public private(set) var jitter = InterarrivalJitter()

    /// Starts tracking `ssrc`; its first packet begins probation.
    public init(ssrc: UInt32) {
        self.ssrc = ssrc
        self.probation = Self.minimumSequential
        self.initialized = false
    }

    private var initialized: Bool

    /// Highest sequence number received with its wrap count, as reported in a report block.
    public var extendedHighestSequenceNumber: UInt32 { cycles &+ UInt32(maxSeq) }

    /// Packets expected since the sequence began (A.3).
    public var expected: UInt32 { extendedHighestSequenceNumber &- baseSeq &+ 1 }

    /// Packets lost since the sequence began; negative when duplicates outnumber losses (A.3).
    public var cumulativeLost: Int64 { Int64(expected) - Int64(received) }

    /// Accounts one packet. `arrival` is the arrival time in the stream's RTP clock units (for jitter).
    @discardableResult
    public mutating func update(sequenceNumber seq: UInt16, rtpTimestamp: UInt32, arrival: UInt32) -> Verdict {
        let verdict = updateSequence(seq)
        if verdict == .accepted {
            received &+= 1
            jitter.update(rtpTimestamp: rtpTimestamp, arrival: arrival)
        }
        return verdict
    }

    private mutating func restart(at seq: UInt16) {
        baseSeq = UInt32(seq)
        maxSeq = seq
        badSeq = 0x1_0000 + 1
        cycles = 0
        received = 0
        receivedPrior = 0
        expectedPrior = 0
        jitter = InterarrivalJitter()
    }

    /// RFC 3550 A.1 `update_seq`.
    private mutating func updateSequence(_ seq: UInt16) -> Verdict {
        guard initialized else {
            initialized = true
            restart(at: seq)
            maxSeq = seq &- 1
            probation = Self.minimumSequential
            return updateSequence(seq)
        }
        let delta = seq &- maxSeq
        if probation > 0 {
            guard seq == maxSeq &+ 1 else {
                probation = Self.minimumSequential - 1
                maxSeq = seq
                return .probation
            }
            probation -= 1
            maxSeq = seq
            if probation == 0 {
                restart(at: seq &- UInt16(Self.minimumSequential - 1))
                maxSeq = seq
                received = UInt32(Self.minimumSequential - 1)  // the packets that confirmed the source
                return .accepted
            }
            return .probation
        }
        if delta < Self.maximumDropout {
            if seq < maxSeq { cycles &+= 0x1_0000 }  // wrapped
            maxSeq = seq
        } else if Int(delta) <= 0x1_0000 - Int(Self.maximumMisorder) {
            // A very large jump: accept it only if the next packet follows it (the source restarted).
            if UInt32(seq) == badSeq {
                restart(at: seq)
            } else {
                badSeq = UInt32(seq &+ 1)
                return .rejected
            }
        }
        // Otherwise a duplicate or reordered packet: counted, maxSeq unchanged.
        return .accepted
    }

    /// The report block for this source; resets the interval counters used for the fraction lost (A.3).
    public mutating func makeReportBlock(
        lastSenderReport: UInt32 = 0, delaySinceLastSenderReport: UInt32 = 0
    ) -> RTCPReportBlock {
        let expected = self.expected
        let expectedInterval = expected &- expectedPrior
        let receivedInterval = received &- receivedPrior
        expectedPrior = expected
        receivedPrior = received
        let lostInterval = Int64(expectedInterval) - Int64(receivedInterval)
        let fraction: UInt8 =
            expectedInterval == 0 || lostInterval <= 0 ? 0 : UInt8(min((lostInterval << 8) / Int64(expectedInterval), 255))
        let range = RTCPReportBlock.cumulativeLostRange
        return RTCPReportBlock(
            ssrc: ssrc, fractionLost: fraction,
            cumulativeLost: Int32(min(max(cumulativeLost, Int64(range.lowerBound)), Int64(range.upperBound))),
            extendedHighestSequenceNumber: extendedHighestSequenceNumber, jitter: jitter.value,
            lastSenderReport: lastSenderReport, delaySinceLastSenderReport: delaySinceLastSenderReport)
    }
}
