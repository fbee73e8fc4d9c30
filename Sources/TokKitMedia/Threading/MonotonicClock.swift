#if canImport(Glibc)
import Glibc
#endif

/// The clock every frame and sample timestamp in TokKit is read from: `CLOCK_MONOTONIC`, the clock V4L2
/// stamps camera buffers with. Its origin is arbitrary (boot); only differences mean anything.
public enum MonotonicClock {
    /// Time since the clock's origin. Allocation-free; callable from any thread.
    @inline(__always)
    public static func now() -> Duration {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return .seconds(ts.tv_sec) + .nanoseconds(ts.tv_nsec)
    }
}

extension Duration {
    /// Whole nanoseconds (saturating), handy for arithmetic on timestamps.
    public var nanoseconds: Int64 {
        let (s, atto) = components
        return s &* 1_000_000_000 &+ atto / 1_000_000_000
    }

    /// Seconds as a floating-point value.
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
