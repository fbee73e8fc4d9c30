/// Decides which video packets to request again with generic NACK (RFC 4585 §6.2.1), on the receiving side.
///
/// ``observe(_:now:)`` takes the sequence number of every received packet of the stream (retransmissions too). A
/// jump past the highest sequence number seen adds the skipped numbers to the missing list; a packet on that list
/// removes it. ``pending(now:)`` returns the numbers to put in the next NACK (feed them to
/// ``RTCPGenericNACK/write(senderSSRC:mediaSSRC:lostSequenceNumbers:into:)``): each is requested at once, again
/// every ``Configuration/retryInterval`` until it was requested ``Configuration/quickRequests`` times, then every
/// ``Configuration/lateRetryInterval``, up to ``Configuration/maximumRetries`` requests in all, and forgotten after
/// ``Configuration/maximumAge``. The quick repeats repair random loss within the playout delay; the late ones reach
/// past a congested queue that dropped the quick ones' answers, until the frame is given up. The list holds at most
/// ``Configuration/capacity`` numbers, oldest dropped first; a gap larger than that clears it and is reported as
/// ``Observation/overflow(_:)`` (ask for a key frame instead, as libwebrtc does).
///
/// Times are monotonic nanoseconds from the caller's clock. Storage is allocated at init; observing and collecting
/// allocate nothing. Threading: not thread-safe; use it from one thread (the network thread) or under a lock.
public final class NACKGenerator {
    /// Bounds and timing.
    public struct Configuration: Hashable, Sendable {
        /// Missing sequence numbers tracked at once.
        public var capacity: Int
        /// Requests per missing packet.
        public var maximumRetries: Int
        /// Nanoseconds between two of the first ``quickRequests`` requests of the same packet.
        public var retryInterval: UInt64
        /// Requests of one packet spaced by ``retryInterval``; later ones are spaced by ``lateRetryInterval``.
        public var quickRequests: Int
        /// Nanoseconds between two later requests of the same packet (about a round trip).
        public var lateRetryInterval: UInt64
        /// Nanoseconds after which a missing packet is no longer requested.
        public var maximumAge: UInt64

        public init(capacity: Int = 256, maximumRetries: Int = 14, retryInterval: UInt64 = 20_000_000,
                    quickRequests: Int = 10, lateRetryInterval: UInt64 = 100_000_000,
                    maximumAge: UInt64 = 1_000_000_000) {
            self.capacity = capacity
            self.maximumRetries = maximumRetries
            self.retryInterval = retryInterval
            self.quickRequests = quickRequests
            self.lateRetryInterval = lateRetryInterval
            self.maximumAge = maximumAge
        }
    }

    /// What one observed sequence number meant.
    public enum Observation: Hashable, Sendable {
        /// The first packet, or the next one in order.
        case inOrder
        /// A jump: this many packets before it are now missing (and pending).
        case gap(Int)
        /// A packet that was missing arrived (a retransmission or a reordered packet).
        case recovered
        /// An old packet that was not missing: a duplicate, or one given up already.
        case duplicate
        /// A jump of this many packets, more than the list holds: the list was cleared.
        case overflow(Int)
    }

    /// Running counts, for statistics.
    public struct Counters: Hashable, Sendable {
        /// Sequence numbers added to the missing list.
        public var missing = 0
        /// Requests produced by ``NACKGenerator/pending(now:)``, retries included.
        public var requested = 0
        /// Missing packets that arrived.
        public var recovered = 0
        /// Missing packets given up (retries or age exhausted, or pushed out of a full list).
        public var expired = 0
        public init() {}
    }

    private struct Entry {
        var sequence: Int64
        var firstSeen: UInt64
        var lastSent: UInt64 = 0
        var retries = 0
    }

    /// The configuration; ``Configuration/lateRetryInterval`` may be updated as the round-trip time changes.
    public var configuration: Configuration
    public private(set) var counters = Counters()
    private var entries: [Entry]
    private let output: UnsafeMutableBufferPointer<UInt16>
    private var unwrapper = SequenceNumberUnwrapper()
    private var highest: Int64?

    /// Throws ``RTPError/valueOutOfRange(field:value:)`` for a capacity below 1.
    public init(_ configuration: Configuration = Configuration()) throws(RTPError) {
        guard configuration.capacity >= 1, configuration.capacity <= 32_768 else {
            throw .valueOutOfRange(field: "NACK list capacity", value: configuration.capacity)
        }
        self.configuration = configuration
        entries = []
        entries.reserveCapacity(configuration.capacity)
        output = .allocate(capacity: configuration.capacity)
    }

    deinit { output.deallocate() }

    /// Sequence numbers currently missing.
    public var missingCount: Int { entries.count }

    /// Records one received packet.
    @discardableResult
    public func observe(_ sequenceNumber: UInt16, now: UInt64) -> Observation {
        let sequence = unwrapper.unwrap(sequenceNumber)
        guard let top = highest else {
            highest = sequence
            return .inOrder
        }
        if sequence > top {
            highest = sequence
            let gap = Int(sequence - top - 1)
            if gap == 0 { return .inOrder }
            if gap > configuration.capacity {
                counters.expired += entries.count
                entries.removeAll(keepingCapacity: true)
                return .overflow(gap)
            }
            let overflow = entries.count + gap - configuration.capacity
            if overflow > 0 {
                entries.removeFirst(overflow)
                counters.expired += overflow
            }
            for missing in top + 1 ..< sequence { entries.append(Entry(sequence: missing, firstSeen: now)) }
            counters.missing += gap
            return .gap(gap)
        }
        // Older than the highest: missing? Entries are sorted by sequence number.
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].sequence < sequence { low = mid + 1 } else { high = mid }
        }
        guard low < entries.count, entries[low].sequence == sequence else { return .duplicate }
        entries.remove(at: low)
        counters.recovered += 1
        return .recovered
    }

    /// The sequence numbers to request now, in increasing order (modulo 2^16); marks them requested. The buffer is
    /// valid until the next call on this generator. Drops entries whose retries or age are exhausted.
    public func pending(now: UInt64) -> UnsafeBufferPointer<UInt16> {
        var count = 0
        let before = entries.count
        entries.removeAll { entry in
            entry.retries >= configuration.maximumRetries || now &- entry.firstSeen > configuration.maximumAge
        }
        counters.expired += before - entries.count
        for i in entries.indices {
            let entry = entries[i]
            let interval = entry.retries < configuration.quickRequests ? configuration.retryInterval
                                                                       : configuration.lateRetryInterval
            guard entry.retries == 0 || now &- entry.lastSent >= interval else { continue }
            entries[i].retries += 1
            entries[i].lastSent = now
            output[count] = UInt16(truncatingIfNeeded: entry.sequence)
            count += 1
        }
        counters.requested += count
        return UnsafeBufferPointer(rebasing: output[..<count])
    }

    /// Forgets the stream (e.g. a new SSRC).
    public func reset() {
        entries.removeAll(keepingCapacity: true)
        unwrapper = SequenceNumberUnwrapper()
        highest = nil
    }
}
