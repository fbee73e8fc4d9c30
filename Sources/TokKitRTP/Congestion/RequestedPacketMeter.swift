/// The share of our recent video packets that the peer asked for again (a first NACK for each), on the sending side:
/// the loss the peer sees, known as soon as its NACKs arrive. Transport-wide feedback tells the same a window later
/// (``LossBasedController``: 200 ms at the least); at a bottleneck's onset the NACKs came first, and every copy sent
/// while the loss was not yet known went into the queue that was dropping the originals (network-bench's bottleneck
/// row: retransmissions at 400-500 kb/s beside the media behind a 500 kb/s cap, for 0.2 s).
///
/// Counts over two buckets of ``bucket`` (the current one and the one before). A request answers a packet sent about
/// a round trip earlier, so the share is a proxy; it is read only against a high threshold. Times are ns on any
/// monotonic clock. A plain value, no allocation; not thread-safe (one owner: the peer's `NACKResponder`).
public struct RequestedPacketMeter: Sendable, Hashable {
    /// One bucket's span (ns).
    public static let bucket: UInt64 = 100_000_000
    /// Fewer packets sent than this over both buckets give no share.
    public static let minimumPackets = 10

    private var start: UInt64?
    private var sent = 0
    private var requested = 0
    private var previousSent = 0
    private var previousRequested = 0

    public init() {}

    /// Counts a packet of ours sent at `now`.
    public mutating func packetSent(now: UInt64) {
        advance(to: now)
        sent += 1
    }

    /// Counts the first request for one of our packets at `now`.
    public mutating func packetRequested(now: UInt64) {
        advance(to: now)
        requested += 1
    }

    /// Requested over sent in the current and the previous bucket; nil while fewer than ``minimumPackets`` were sent
    /// then.
    public mutating func share(now: UInt64) -> Double? {
        advance(to: now)
        let total = sent + previousSent
        guard total >= Self.minimumPackets else { return nil }
        return Double(requested + previousRequested) / Double(total)
    }

    private mutating func advance(to now: UInt64) {
        guard let begun = start else {
            start = now
            return
        }
        guard now >= begun &+ Self.bucket else { return }
        let passed = (now - begun) / Self.bucket
        (previousSent, previousRequested) = passed == 1 ? (sent, requested) : (0, 0)
        (sent, requested) = (0, 0)
        start = begun &+ passed * Self.bucket
    }
}
