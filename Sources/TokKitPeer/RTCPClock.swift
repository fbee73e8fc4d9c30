#if canImport(Glibc)
import Glibc
#endif
import TokKitRTP

/// Clocks for RTCP: wall-clock NTP time for SR timestamps and LSR/DLSR arithmetic, and a monotonic
/// nanosecond counter for RTP arrival times. Reading them allocates nothing; callable from any thread.
enum RTCPClock {
    /// Now as an NTP timestamp (CLOCK_REALTIME).
    static func ntpNow() -> NTPTimestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return NTPTimestamp(unixSeconds: UInt64(max(ts.tv_sec, 0)), nanoseconds: UInt32(ts.tv_nsec))
    }

    /// Monotonic nanoseconds (CLOCK_MONOTONIC).
    static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// A 16.16 compact NTP duration as a `Duration`.
    static func duration(compact: UInt32) -> Duration {
        .nanoseconds(Int64(compact) * 1_000_000_000 / 65_536)
    }
}
