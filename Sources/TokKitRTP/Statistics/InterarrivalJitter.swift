/// The interarrival jitter estimate of RFC 3550 §6.4.1, computed as in its appendix A.8.
///
/// For packets i-1, i with RTP timestamps S and arrival times R (both in the stream's clock rate):
/// D(i-1,i) = (R_i - R_{i-1}) - (S_i - S_{i-1}), and J += (|D| - J) / 16. The state is kept scaled by 16 in integer
/// arithmetic, as A.8 recommends, so the value reported is exact and drift free. A plain value; allocation free.
public struct InterarrivalJitter: Hashable, Sendable {
    private var scaled: UInt64 = 0
    private var lastTransit: Int64?

    public init() {}

    /// Feeds one packet: its RTP timestamp and its arrival time converted to the same clock (timestamp units).
    public mutating func update(rtpTimestamp: UInt32, arrival: UInt32) {
        // Transit times wrap with both clocks; their difference is a small signed number.
        let transit = Int64(Int32(bitPattern: arrival &- rtpTimestamp))
        defer { lastTransit = transit }
        guard let lastTransit else { return }
        let d = UInt64(min(abs(transit - lastTransit), Int64(UInt32.max)))
        // J' = J + (|D| - J) / 16, kept as 16 J: 16 J' = 16 J + |D| - (16 J) / 16.
        scaled = scaled + d - ((scaled + 8) >> 4)
    }

    /// The current estimate in timestamp units, as written in a reception report.
    public var value: UInt32 { UInt32(truncatingIfNeeded: min(scaled >> 4, UInt64(UInt32.max))) }
}
