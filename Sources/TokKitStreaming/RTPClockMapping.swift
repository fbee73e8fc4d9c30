import TokKitMedia

/// Maps monotonic capture time (``MonotonicClock``) to RTP timestamps of one stream and back.
///
/// `timestamp = offset + time × clockRate` (wrapping at 2³²). A receiver in the same process that knows the
/// sender's mapping recovers each frame's capture time from its RTP timestamp (within ±2³¹ ticks of a
/// reference time: 6.6 hours at 90 kHz), which is how capture-to-render latency is measured.
///
/// Value type, usable from any thread; allocation-free.
public struct RTPClockMapping: Hashable, Sendable {
    /// Ticks per second (90 000 for video, 48 000 for Opus).
    public let clockRate: Int
    /// The random RTP timestamp at monotonic time zero (RFC 3550 §5.1).
    public let offset: UInt32

    public init(clockRate: Int, offset: UInt32 = .random(in: 0 ... .max)) {
        precondition(clockRate > 0, "clock rate must be positive")
        self.clockRate = clockRate
        self.offset = offset
    }

    /// The RTP timestamp of monotonic time `time`.
    @inline(__always)
    public func timestamp(at time: Duration) -> UInt32 {
        let micros = time.nanoseconds / 1_000
        // Microseconds × rate stays below 2⁶³ for 1000 days of uptime at 90 kHz.
        let t = (micros &* Int64(clockRate)) / 1_000_000
        return offset &+ UInt32(truncatingIfNeeded: t)
    }

    /// The monotonic time of RTP timestamp `timestamp`, taking the wrap nearest to `reference`.
    @inline(__always)
    public func time(of timestamp: UInt32, near reference: Duration) -> Duration {
        let delta = Int32(bitPattern: timestamp &- self.timestamp(at: reference))
        return reference + .microseconds(Int64(delta) * 1_000_000 / Int64(clockRate))
    }
}
