/// The send side's record of the packets it stamped with a transport-wide sequence number
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2): sequence number → (send time, size), so feedback
/// about them (§3.1) can be turned into ``TransportPacketResult``s.
///
/// A ring of ``capacity`` slots allocated at init (4096 by default: about 4 s of 1 Mbps video plus audio); nothing
/// is allocated per packet or per feedback. Sequence numbers are unwrapped to 64 bits against the newest one sent,
/// so a number is matched only while it is among the last ``capacity`` sent, across the 16-bit wrap. A packet is
/// reported once: a second report about the same number (duplicated or late feedback) is ignored, as are numbers
/// never sent or already overwritten. Threading: not thread-safe; use it under one lock (the send threads record,
/// the network thread matches feedback).
public final class TransportSendHistory {
    /// Slots kept.
    public let capacity: Int
    /// Unwrapped sequence number held by each slot (-1: empty or already reported).
    private let sequences: UnsafeMutableBufferPointer<Int64>
    private let sendTimes: UnsafeMutableBufferPointer<Int64>
    private let sizes: UnsafeMutableBufferPointer<Int32>
    /// The newest unwrapped sequence number recorded, -1 before the first.
    private var newest: Int64 = -1
    /// Packets recorded, and reports ignored because the number was unknown, overwritten or already reported.
    public private(set) var recorded = 0
    public private(set) var unknownReports = 0

    /// Throws ``RTPError/valueOutOfRange(field:value:)`` for a capacity outside 16...32768.
    public init(capacity: Int = 4096) throws(RTPError) {
        guard (16...32_768).contains(capacity) else {
            throw .valueOutOfRange(field: "transport send history capacity", value: capacity)
        }
        self.capacity = capacity
        sequences = .allocate(capacity: capacity)
        sequences.initialize(repeating: -1)
        sendTimes = .allocate(capacity: capacity)
        sendTimes.initialize(repeating: 0)
        sizes = .allocate(capacity: capacity)
        sizes.initialize(repeating: 0)
    }

    deinit {
        sequences.deallocate()
        sendTimes.deallocate()
        sizes.deallocate()
    }

    /// The 64-bit number nearest to the newest recorded with these low 16 bits (RFC 3550 A.1 style unwrap).
    private func unwrap(_ sequence: UInt16) -> Int64 {
        guard newest >= 0 else { return Int64(sequence) }
        let delta = Int64(Int16(bitPattern: sequence &- UInt16(truncatingIfNeeded: newest)))
        return newest + delta
    }

    /// Records a packet sent with transport-wide `sequence` at `sendTime` (µs), `size` bytes on the wire.
    public func record(_ sequence: UInt16, sendTime: Int64, size: Int) {
        let unwrapped = unwrap(sequence)
        guard unwrapped >= 0 else { return }
        if unwrapped > newest { newest = unwrapped }
        let i = Int(unwrapped % Int64(capacity))
        sequences[i] = unwrapped
        sendTimes[i] = sendTime
        sizes[i] = Int32(clamping: size)
        recorded += 1
    }

    /// Takes the record of `sequence` (send time µs, size), nil when it was never recorded, has been overwritten or
    /// was already taken.
    public func take(_ sequence: UInt16) -> (sendTime: Int64, size: Int)? {
        let unwrapped = unwrap(sequence)
        guard unwrapped >= 0, unwrapped <= newest, unwrapped > newest - Int64(capacity) else {
            unknownReports += 1
            return nil
        }
        let i = Int(unwrapped % Int64(capacity))
        guard sequences[i] == unwrapped else {
            unknownReports += 1
            return nil
        }
        sequences[i] = -1
        return (sendTimes[i], Int(sizes[i]))
    }

    /// Turns one feedback message into results, appended to `results` (which keeps its capacity: no allocation
    /// once it has grown to a message's size). Arrival times (µs) are the reference time (§3.1, × 64 ms) plus the
    /// running sum of receive deltas (§3.1.5, 250 µs ticks). Packets we have no record of are skipped.
    public func results(for feedback: RTCPTransportWideFeedback, into results: inout [TransportPacketResult]) {
        var time = Int64(feedback.referenceTime) * RTCPTransportWideFeedback.referenceTimeUnitMicroseconds
        var sequence = feedback.baseSequenceNumber
        for status in feedback.statuses {
            defer { sequence &+= 1 }
            var arrival: Int64?
            if let ticks = status.deltaTicks {
                time += Int64(ticks) * RTCPTransportWideFeedback.deltaTickMicroseconds
                arrival = time
            }
            guard let sent = take(sequence) else { continue }
            results.append(TransportPacketResult(sequenceNumber: sequence, sendTime: sent.sendTime,
                                                 arrivalTime: arrival, size: sent.size))
        }
    }
}
