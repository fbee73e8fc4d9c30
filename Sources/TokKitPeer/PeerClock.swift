#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import TokKitRTP

/// The time a ``PeerConnection`` runs on: a monotonic nanosecond counter for arrival times, timers and every input
/// of its feedback units, and a fixed mapping from it to NTP wall-clock time for RTCP sender reports (set once, as
/// libwebrtc does: a wall-clock step moves neither the SR timestamps nor the round-trip times).
///
/// ``system`` is CLOCK_MONOTONIC; ``manual(_:)`` is a clock that only moves when a test moves it. Reading either
/// allocates nothing; callable from any thread.
public struct PeerClock: Sendable {
    /// Now, in monotonic nanoseconds.
    public let now: @Sendable () -> UInt64
    /// The NTP time at monotonic 0.
    public let ntpOrigin: NTPTimestamp
    /// Whether ``now`` reads CLOCK_MONOTONIC (``system``): then the arrival times a batching ICE agent takes from the
    /// kernel (``ICEAgent/receivedDatagramArrival``, on the same clock) are used for received packets; other clocks
    /// (a test's) time packets when they are handled.
    public let readsSystemMonotonic: Bool

    /// A clock reading `now`, at `ntpOrigin` when it reads 0.
    public init(ntpOrigin: NTPTimestamp, now: @escaping @Sendable () -> UInt64) {
        self.init(ntpOrigin: ntpOrigin, readsSystemMonotonic: false, now: now)
    }

    private init(ntpOrigin: NTPTimestamp, readsSystemMonotonic: Bool, now: @escaping @Sendable () -> UInt64) {
        self.now = now
        self.ntpOrigin = ntpOrigin
        self.readsSystemMonotonic = readsSystemMonotonic
    }

    /// CLOCK_MONOTONIC, mapped to CLOCK_REALTIME as read when this clock is made.
    public static var system: PeerClock {
        let monotonic = monotonicNanoseconds()
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let wall = UInt64(max(ts.tv_sec, 0)) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
        let origin = wall &- min(monotonic, wall)
        return PeerClock(ntpOrigin: NTPTimestamp(unixSeconds: origin / 1_000_000_000,
                                                 nanoseconds: UInt32(origin % 1_000_000_000)),
                         readsSystemMonotonic: true, now: monotonicNanoseconds)
    }

    /// A clock that reads `time`'s value (tests move it).
    public static func manual(_ time: ManualTime) -> PeerClock {
        PeerClock(ntpOrigin: NTPTimestamp(unixSeconds: 3_000_000_000 - NTPTimestamp.unixEpochOffset, nanoseconds: 0),
                  now: { time.nanoseconds })
    }

    /// The NTP time at monotonic `nanoseconds`.
    public func ntp(at nanoseconds: UInt64) -> NTPTimestamp {
        let seconds = nanoseconds / 1_000_000_000, rest = nanoseconds % 1_000_000_000
        // 2^32 / 10^9 fractions per nanosecond, in 64-bit arithmetic: rest < 10^9 < 2^30.
        let fraction = (rest << 32) / 1_000_000_000
        return NTPTimestamp(rawValue: ntpOrigin.rawValue &+ (seconds << 32) &+ fraction)
    }

    /// CLOCK_MONOTONIC in nanoseconds.
    static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// A 16.16 compact NTP duration as a `Duration`.
    static func duration(compact: UInt32) -> Duration {
        .nanoseconds(Int64(compact) * 1_000_000_000 / 65_536)
    }

    /// A time a test sets and advances, read by ``PeerClock/manual(_:)``. Any thread.
    public final class ManualTime: Sendable {
        private let value: Atomic<UInt64>
        /// Starts at `nanoseconds` (1 s by default: 0 reads as "never" in some counters).
        public init(nanoseconds: UInt64 = 1_000_000_000) { value = Atomic(nanoseconds) }
        /// The time now.
        public var nanoseconds: UInt64 { value.load(ordering: .relaxed) }
        /// Moves the time forward by `duration` (negative durations are ignored).
        public func advance(by duration: Duration) {
            let (seconds, attoseconds) = duration.components
            guard seconds >= 0, attoseconds >= 0 else { return }
            value.add(UInt64(clamping: seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000),
                      ordering: .relaxed)
        }
    }
}
