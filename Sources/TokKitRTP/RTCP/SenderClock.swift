/// One RTP stream's timestamps mapped to its sender's wall clock, from an RTCP sender report (RFC 3550 §6.4.1: the
/// report's RTP timestamp is the same instant as its NTP timestamp). A sender stamps its audio and its video from
/// one NTP clock, so two streams' mappings put their timestamps on one common timeline: how a recorder keeps audio
/// and video of one publisher in sync (lip sync, RFC 3550 §6.4.1 and §7.1), whenever each stream's first packet
/// happened to arrive.
///
/// Times are nanoseconds on the NTP timescale (since 1900; fits in 64 bits until 2192). A timestamp is taken
/// within ±2³¹ ticks of the report's (the nearest wrap: 6.6 hours at 90 kHz, 12.4 at 48 kHz). A plain value: no
/// clock, no I/O; tested alone.
public struct SenderClock: Hashable, Sendable {
    /// The report's NTP time.
    public let ntp: NTPTimestamp
    /// The report's RTP timestamp: the same instant as ``ntp`` on the stream's RTP clock.
    public let rtpTimestamp: UInt32
    /// RTP clock rate of the stream: 90000 for video, 48000 for Opus.
    public let clockRate: Int

    /// The mapping a sender report of a `clockRate` stream gives.
    public init(ntp: NTPTimestamp, rtpTimestamp: UInt32, clockRate: Int) {
        precondition(clockRate > 0, "RTP clock rate must be positive")
        self.ntp = ntp
        self.rtpTimestamp = rtpTimestamp
        self.clockRate = clockRate
    }

    /// The report's NTP time in nanoseconds since 1900.
    public var ntpNanoseconds: Int64 {
        let seconds = Int64(ntp.seconds), fraction = Int64(ntp.fraction)
        // Fraction × 10⁹ < 2⁶²: no overflow; rounded down.
        return seconds * 1_000_000_000 + (fraction * 1_000_000_000) >> 32
    }

    /// The sender's NTP time of `timestamp`, in nanoseconds since 1900.
    public func senderTime(of timestamp: UInt32) -> Int64 {
        let ticks = Int64(Int32(bitPattern: timestamp &- rtpTimestamp))
        // |ticks| < 2³¹, × 10⁹ < 2⁶¹: exact before the division (floor, so that a timestamp before the report's maps
        // before it).
        let scaled = ticks * 1_000_000_000
        let rate = Int64(clockRate)
        let nanoseconds = scaled >= 0 ? scaled / rate : (scaled - (rate - 1)) / rate
        return ntpNanoseconds + nanoseconds
    }
}
