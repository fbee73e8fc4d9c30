/// The rate at which one kind of our packets goes out (bits per second over about the last second): two
/// consecutive 500 ms buckets, the older one whole and the current one so far. Fed per packet with its size on the
/// wire; read when the bandwidth estimate is shared out (``TransportCongestionControl`` keeps them for the audio,
/// the video and its retransmissions, whose shares the video encoder must leave free). Times are µs on any
/// monotonic clock. A plain value, no allocation; not thread-safe: one owner feeds and reads it (there, under the
/// congestion controller's lock).
public struct SendRateMeter: Sendable {
    /// One bucket's span (µs).
    public static let bucket: Int64 = 500_000
    /// The shortest span a rate is measured over (µs): the first packets do not read as a burst.
    public static let minimumSpan: Int64 = 100_000

    /// When the current bucket began (nil: nothing sent yet).
    private var start: Int64?
    private var current = 0
    /// The bucket before the current one, nil when nothing was measured then (the start, or after a silence).
    private var previous: Int?

    public init() {}

    /// Counts `bytes` sent at `now`.
    public mutating func add(_ bytes: Int, now: Int64) {
        advance(to: now)
        current += bytes
    }

    /// The rate over the previous bucket and the current one so far; 0 before anything was sent, or once a
    /// bucket has run its course without packets after the one before (0.5-1 s after the last packet). A gap
    /// shorter than that is averaged in: after a mute of under a second the rate reads low for up to a second.
    public func bitsPerSecond(now: Int64) -> Int {
        guard let start else { return 0 }
        let elapsed = max(now - start, 0)
        if elapsed >= 2 * Self.bucket { return 0 }
        // A bucket that has run its course while nothing was sent: what it holds, over its time so far.
        if elapsed >= Self.bucket { return rate(current, over: elapsed) }
        guard let previous else { return rate(current, over: elapsed) }
        return rate(previous + current, over: Self.bucket + elapsed)
    }

    private func rate(_ bytes: Int, over span: Int64) -> Int {
        bytes * 8 * 1_000_000 / Int(max(span, Self.minimumSpan))
    }

    private mutating func advance(to now: Int64) {
        guard let begun = start else {
            start = now
            return
        }
        let elapsed = now - begun
        guard elapsed >= Self.bucket else { return }
        if elapsed < 2 * Self.bucket {
            (previous, current, start) = (current, 0, begun + Self.bucket)
        } else {
            (previous, current, start) = (nil, 0, now)
        }
    }
}
