/// Modular comparisons of 16-bit RTP sequence numbers and 32-bit RTP timestamps (RFC 3550 §5.1, RFC 1982).
///
/// `a` is newer than `b` when it is ahead by less than half the number space; the exact half is decided by the
/// larger raw value, so that exactly one of `isNewer(a, than: b)` and `isNewer(b, than: a)` holds when `a != b`.
public enum RTPSequenceNumber {
    /// Whether sequence number `a` comes after `b`.
    @inline(__always)
    public static func isNewer(_ a: UInt16, than b: UInt16) -> Bool {
        let delta = a &- b
        return delta == 0x8000 ? a > b : delta != 0 && delta < 0x8000
    }

    /// Whether timestamp `a` comes after `b`.
    @inline(__always)
    public static func isNewer(_ a: UInt32, than b: UInt32) -> Bool {
        let delta = a &- b
        return delta == 0x8000_0000 ? a > b : delta != 0 && delta < 0x8000_0000
    }

    /// Signed distance from `b` to `a`, in -32768 ... 32767 (positive when `a` is newer).
    @inline(__always)
    public static func distance(from b: UInt16, to a: UInt16) -> Int {
        Int(Int16(bitPattern: a &- b))
    }
}

/// Extends 16-bit sequence numbers to 64 bits by counting wrap-arounds (the "cycles" of RFC 3550 A.1).
///
/// Each call returns the extended value closest to the last one seen, so reordered packets just before a wrap
/// keep their old cycle. A plain value for one receiving thread; allocation free.
public struct SequenceNumberUnwrapper: Hashable, Sendable {
    private var last: Int64?

    public init() {}

    /// The extended sequence number for `sequenceNumber`.
    public mutating func unwrap(_ sequenceNumber: UInt16) -> Int64 {
        guard let last else {
            self.last = Int64(sequenceNumber)
            return Int64(sequenceNumber)
        }
        let value = last + Int64(RTPSequenceNumber.distance(from: UInt16(truncatingIfNeeded: last), to: sequenceNumber))
        if value > last { self.last = value }
        return value
    }
}

/// Extends 32-bit RTP timestamps to 64 bits, the way ``SequenceNumberUnwrapper`` extends sequence numbers.
public struct TimestampUnwrapper: Hashable, Sendable {
    private var last: Int64?

    public init() {}

    /// The extended timestamp for `timestamp`.
    public mutating func unwrap(_ timestamp: UInt32) -> Int64 {
        guard let last else {
            self.last = Int64(timestamp)
            return Int64(timestamp)
        }
        let value = last + Int64(Int32(bitPattern: timestamp &- UInt32(truncatingIfNeeded: last)))
        if value > last { self.last = value }
        return value
    }
}
