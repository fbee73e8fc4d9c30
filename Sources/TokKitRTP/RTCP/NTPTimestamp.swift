/// A 64-bit NTP timestamp (RFC 3550 §4): seconds since 1900-01-01 in the high 32 bits, the fraction in the low 32.
///
/// Sender reports carry the full value; reception reports echo its middle 32 bits (``compact``) as LSR, and express
/// DLSR in the same 16.16 format.
public struct NTPTimestamp: Hashable, Sendable, Comparable {
    public var rawValue: UInt64

    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Seconds between the NTP epoch (1900) and the Unix epoch (1970).
    public static let unixEpochOffset: UInt64 = 2_208_988_800

    /// The timestamp of a Unix time given as seconds and nanoseconds since 1970.
    public init(unixSeconds: UInt64, nanoseconds: UInt32) {
        let fraction = (UInt64(min(nanoseconds, 999_999_999)) << 32) / 1_000_000_000
        rawValue = (unixSeconds &+ Self.unixEpochOffset) << 32 | fraction
    }

    /// Whole seconds since 1900 (wraps in 2036, as on the wire).
    public var seconds: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 32) }
    /// Fraction of a second in units of 2^-32 s.
    public var fraction: UInt32 { UInt32(truncatingIfNeeded: rawValue) }
    /// The middle 32 bits (16.16 fixed point), the LSR value of a reception report.
    public var compact: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 16) }

    /// A duration in the 16.16 format of DLSR (units of 1/65536 s), saturating at `UInt32.max`.
    public static func compact(_ duration: Duration) -> UInt32 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        guard seconds < 65536 else { return .max }
        let fraction = UInt64(attoseconds) / 15_258_789_062_500  // 10^18 / 65536, rounded down
        return UInt32(seconds) << 16 | UInt32(min(fraction, 0xFFFF))
    }

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
