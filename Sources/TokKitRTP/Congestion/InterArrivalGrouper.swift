/// Groups packets into send bursts and measures the delay variation between consecutive groups
/// (draft-ietf-rmcat-gcc-02 §5.2, "Arrival-time model", as libwebrtc's `InterArrival` does it).
///
/// A group holds the packets sent within ``burstInterval`` (5 ms) of the group's first packet; a packet that
/// arrives less than 5 ms after the group's last one *and* earlier than its send spacing predicts (negative
/// propagation delta: it waited behind the group in a queue) joins the group too (§5.2's burst rule). When a
/// group is complete, the deltas between its last packet and the previous group's last packet are returned:
/// `d(i) = arrivalDelta − sendDelta`, the one-way delay variation §5.3 filters. Packets sent before the current
/// group started (reordered) are ignored. Times are microseconds. A plain value: no allocation, one thread.
public struct InterArrivalGrouper: Sendable {
    /// §5.2: packets sent within this span form one group (µs).
    public static let burstInterval: Int64 = 5_000
    /// A group whose arrivals span more than this stops absorbing bursts (libwebrtc's kMaxBurstDuration, µs).
    public static let maximumBurstDuration: Int64 = 100_000

    /// The deltas between two consecutive groups (µs, bytes).
    public struct Delta: Hashable, Sendable {
        public var sendDelta: Int64
        public var arrivalDelta: Int64
        public var sizeDelta: Int
        /// The later group's last arrival (µs, receiver clock).
        public var arrivalTime: Int64
        /// One-way delay variation in milliseconds: arrival delta minus send delta.
        public var delayVariationMilliseconds: Double { Double(arrivalDelta - sendDelta) / 1000 }
    }

    struct Group {
        var firstSend: Int64, lastSend: Int64, firstArrival: Int64, lastArrival: Int64, size: Int
    }

    private var current: Group?
    private var previous: Group?

    public init() {}

    /// Adds one received packet in send order; returns the deltas when it starts a new group and two complete
    /// groups exist.
    public mutating func add(sendTime: Int64, arrivalTime: Int64, size: Int) -> Delta? {
        guard var group = current else {
            current = Group(firstSend: sendTime, lastSend: sendTime, firstArrival: arrivalTime,
                            lastArrival: arrivalTime, size: size)
            return nil
        }
        if sendTime < group.firstSend { return nil }  // reordered: belongs to a finished group
        if belongs(sendTime: sendTime, arrivalTime: arrivalTime, to: group) {
            group.lastSend = max(group.lastSend, sendTime)
            group.lastArrival = max(group.lastArrival, arrivalTime)
            group.size += size
            current = group
            return nil
        }
        var delta: Delta?
        if let previous {
            let arrivalDelta = group.lastArrival - previous.lastArrival
            // A negative arrival delta across groups means the receiver's clock jumped: drop the pair.
            if arrivalDelta >= 0 {
                delta = Delta(sendDelta: group.lastSend - previous.lastSend, arrivalDelta: arrivalDelta,
                              sizeDelta: group.size - previous.size, arrivalTime: group.lastArrival)
            }
        }
        previous = group
        current = Group(firstSend: sendTime, lastSend: sendTime, firstArrival: arrivalTime, lastArrival: arrivalTime,
                        size: size)
        return delta
    }

    /// §5.2: within the burst interval of the group's first send time, or a queued burst.
    private func belongs(sendTime: Int64, arrivalTime: Int64, to group: Group) -> Bool {
        if sendTime - group.firstSend <= Self.burstInterval { return true }
        let arrivalDelta = arrivalTime - group.lastArrival
        let propagationDelta = arrivalDelta - (sendTime - group.lastSend)
        return propagationDelta < 0 && arrivalDelta <= Self.burstInterval
            && arrivalTime - group.firstArrival < Self.maximumBurstDuration
    }
}
