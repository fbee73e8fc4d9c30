import TokKitRTP

/// The clock part of the peer's last RTCP sender report about one of its streams (RFC 3550 §6.4.1): its NTP time
/// and the RTP timestamp of the same instant.
public struct RemoteSenderReport: Hashable, Sendable {
    /// The sender's wall-clock time of the report.
    public var ntp: NTPTimestamp
    /// The stream's RTP timestamp at that instant.
    public var rtpTimestamp: UInt32

    /// A report of `ntp` and `rtpTimestamp`.
    public init(ntp: NTPTimestamp, rtpTimestamp: UInt32) {
        self.ntp = ntp
        self.rtpTimestamp = rtpTimestamp
    }
}
