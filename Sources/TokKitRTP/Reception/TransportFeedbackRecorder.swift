/// The receiving side of transport-wide congestion control (draft-holmer-rmcat-transport-wide-cc-extensions-01):
/// remembers when each packet carrying a transport-wide sequence number (§2) arrived, and writes the
/// ``RTCPTransportWideFeedback`` messages (§3.1) that tell the sender.
///
/// ``record(_:arrivalNanoseconds:)`` stores `(sequence number, arrival time)` in a ring of ``capacity`` slots
/// allocated at init. ``writeFeedback(senderSSRC:mediaSSRC:into:)`` then describes every packet from the first one
/// not yet reported up to the highest received, as libwebrtc's receiver does:
/// - sequence numbers are extended past the 16-bit wrap; gaps are reported "not received";
/// - a packet arriving after its number was already reported (reordered, or late) moves the start back, so it is
///   reported again, received this time (with the packets after it);
/// - the base sequence number is the first unreported one, the reference time is the first received packet's
///   arrival rounded down to 64 ms, deltas are rounded to 250 µs without accumulating rounding error;
/// - a delta beyond ±8.19 s (16 bits of 250 µs), a message that would outgrow the buffer, or more than 65535
///   statuses ends the message: the next call continues with a new message and a fresh reference time;
/// - packets more than ``capacity`` numbers behind the highest are dropped (counted in ``Counters/tooOld``), and a
///   jump forward by more than ``capacity`` reports only the last ``capacity`` numbers.
///
/// Times are the caller's monotonic nanoseconds. Recording and writing allocate nothing. Threading: not
/// thread-safe; use it from one thread (the network thread) or under a lock.
public final class TransportFeedbackRecorder {
    /// Running counts, for statistics.
    public struct Counters: Hashable, Sendable {
        /// Packets recorded (duplicates excluded).
        public var recorded = 0
        /// Packets whose number was already recorded.
        public var duplicates = 0
        /// Packets too far behind the highest number to be reported.
        public var tooOld = 0
        /// Feedback messages written.
        public var feedbackMessages = 0
        public init() {}
    }

    private struct Slot {
        /// Extended sequence number stored here, `Int64.min` for none.
        var sequence: Int64
        var arrivalMicroseconds: Int64
    }

    /// Ring slots: the span of sequence numbers one message can describe at most.
    public let capacity: Int
    public private(set) var counters = Counters()
    private let slots: UnsafeMutableBufferPointer<Slot>
    private let deltaScratch: UnsafeMutableRawBufferPointer
    private var unwrapper = SequenceNumberUnwrapper()
    private var highest: Int64?
    /// First extended sequence number not yet reported.
    private var start: Int64 = 0
    private var feedbackCount: UInt8 = 0

    /// Throws ``RTPError/valueOutOfRange(field:value:)`` unless `capacity` is a power of two in 16 ... 32768.
    public init(capacity: Int = 4096) throws(RTPError) {
        guard (16 ... 32_768).contains(capacity), capacity & (capacity - 1) == 0 else {
            throw .valueOutOfRange(field: "transport feedback recorder capacity", value: capacity)
        }
        self.capacity = capacity
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: Slot(sequence: .min, arrivalMicroseconds: 0))
        // Deltas take at most 2 bytes per packet and a message is limited by its buffer: 2 × capacity suffices
        // for any buffer up to that size; longer buffers are used only up to it.
        deltaScratch = .allocate(byteCount: 2 * capacity, alignment: 1)
    }

    deinit {
        slots.deallocate()
        deltaScratch.deallocate()
    }

    /// Whether received packets wait to be reported.
    public var hasPendingFeedback: Bool {
        guard let highest else { return false }
        return start <= highest
    }

    /// Records one received packet's transport-wide sequence number and arrival time (monotonic nanoseconds).
    public func record(_ sequenceNumber: UInt16, arrivalNanoseconds: UInt64) {
        let sequence = unwrapper.unwrap(sequenceNumber)
        let top: Int64
        if let highest, highest >= sequence {
            top = highest
        } else {
            if highest == nil { start = sequence }
            highest = sequence
            top = sequence
        }
        guard sequence > top - Int64(capacity) else {
            counters.tooOld += 1
            return
        }
        let index = Int(sequence & Int64(capacity - 1))
        if slots[index].sequence == sequence {
            counters.duplicates += 1
            return
        }
        slots[index] = Slot(sequence: sequence, arrivalMicroseconds: Int64(arrivalNanoseconds / 1000))
        counters.recorded += 1
        if sequence < start { start = sequence }
    }

    /// Writes the next feedback message into `buffer` (SRTCP's trailer is the caller's business) and returns its
    /// length, or nil when nothing waits to be reported. Call again while ``hasPendingFeedback``: one message may
    /// not describe everything (see the type's documentation). Throws ``RTPError/bufferTooSmall(needed:available:)``
    /// for a buffer below 24 bytes (one received packet).
    public func writeFeedback(senderSSRC: UInt32, mediaSSRC: UInt32,
                              into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int? {
        try requireSpace(24, buffer)
        guard let top = highest, start <= top else { return nil }
        let begin = max(start, top - Int64(capacity) + 1)
        // The reference time comes from the first received packet (the top one is always received).
        var firstArrival: Int64 = 0
        for sequence in begin ... top {
            let slot = slots[Int(sequence & Int64(capacity - 1))]
            if slot.sequence == sequence {
                firstArrival = slot.arrivalMicroseconds
                break
            }
        }
        let unit = RTCPTransportWideFeedback.referenceTimeUnitMicroseconds
        let referenceUnits = firstArrival >= 0 ? firstArrival / unit : (firstArrival - unit + 1) / unit
        var last = referenceUnits * unit
        var builder = try RTCPTransportWideFeedbackBuilder(
            into: buffer, deltaScratch: deltaScratch, senderSSRC: senderSSRC, mediaSSRC: mediaSSRC,
            baseSequenceNumber: UInt16(truncatingIfNeeded: begin),
            referenceTime: UInt32(truncatingIfNeeded: referenceUnits), feedbackPacketCount: feedbackCount)
        var next = begin
        while next <= top {
            let slot = slots[Int(next & Int64(capacity - 1))]
            let status: RTCPTransportWideFeedback.PacketStatus
            var ticks: Int64 = 0
            if slot.sequence == next {
                let tick = RTCPTransportWideFeedback.deltaTickMicroseconds
                let difference = slot.arrivalMicroseconds - last
                // Round to the nearest tick, halves away from zero.
                ticks = difference >= 0 ? (difference + tick / 2) / tick : -((-difference + tick / 2) / tick)
                guard let small = Int16(exactly: ticks) else { break }
                status = RTCPTransportWideFeedback.PacketStatus(deltaTicks: small)
            } else {
                status = .notReceived
            }
            guard builder.add(status) else { break }
            last += ticks * RTCPTransportWideFeedback.deltaTickMicroseconds
            next += 1
        }
        let length = try builder.finish()
        start = next
        feedbackCount &+= 1
        counters.feedbackMessages += 1
        return length
    }

    /// Forgets every packet (e.g. a new transport).
    public func reset() {
        slots.update(repeating: Slot(sequence: .min, arrivalMicroseconds: 0))
        unwrapper = SequenceNumberUnwrapper()
        highest = nil
        start = 0
        feedbackCount = 0
    }
}
