/// A snapshot of one media section's RTP/RTCP statistics (the subset of `RTCOutboundRtpStreamStats`,
/// `RTCInboundRtpStreamStats` and `RTCRemoteInboundRtpStreamStats` TokKit keeps).
///
/// Value type, usable from any thread.
public struct TrackStatistics: Sendable, Hashable {
    /// RTP packets sent on this section.
    public var packetsSent: UInt64 = 0
    /// RTP payload bytes sent (headers excluded, as in RTCP SR octet count).
    public var bytesSent: UInt64 = 0
    /// RTP packets received from the peer on this section (after SRTP authentication).
    public var packetsReceived: UInt64 = 0
    /// RTP payload bytes received.
    public var bytesReceived: UInt64 = 0
    /// Packets of the peer's stream we did not receive (RFC 3550 A.3 cumulative lost).
    public var packetsLost: Int64 = 0
    /// Interarrival jitter of the peer's stream, in seconds (RFC 3550 A.8).
    public var jitter: Double = 0
    /// Packets of our stream the peer reported lost in its last reception report.
    public var remotePacketsLost: Int64 = 0
    /// The share of our packets the peer lost between its last two reception reports, 0...1 (RFC 3550 §6.4.1
    /// fraction lost).
    public var remoteFractionLost: Double = 0
    /// Jitter of our stream as the peer reported it, in seconds.
    public var remoteJitter: Double = 0
    /// Round-trip time from the peer's last reception report with LSR/DLSR (RFC 3550 §6.4.1), if any.
    public var roundTripTime: Duration?
    /// RTCP sender reports sent / received, receiver reports received that covered this section.
    public var senderReportsSent: Int = 0
    public var senderReportsReceived: Int = 0
    public var receptionReportsReceived: Int = 0
    /// Packets of our stream sent again because the peer NACKed them (same sequence number; video only).
    public var packetsRetransmitted: UInt64 = 0
    /// Requests for a packet sent again less than a round trip before while the path was congested, not answered
    /// (``packetsRetransmitted`` does not count them).
    public var retransmissionsSuppressed: UInt64 = 0
    /// Generic NACK packets received about our stream / sent about the peer's.
    public var nacksReceived: Int = 0
    public var nacksSent: Int = 0
    /// PLI or new FIR received about our stream / PLI sent about the peer's.
    public var keyFrameRequestsReceived: Int = 0
    public var keyFrameRequestsSent: Int = 0

    public init() {}
}
