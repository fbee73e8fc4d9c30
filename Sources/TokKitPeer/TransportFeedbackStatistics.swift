/// A snapshot of a ``PeerConnection``'s transport-wide congestion control feedback
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01), both directions.
///
/// Value type, usable from any thread.
public struct TransportFeedbackStatistics: Sendable, Hashable {
    /// The negotiated id of the transport-wide sequence number extension; nil when transport-cc is not in use.
    public var extensionID: UInt8?
    /// The peer's RTP packets whose transport-wide sequence number was recorded (duplicates excluded).
    public var packetsRecorded: Int = 0
    /// Transport-wide feedback messages sent to the peer.
    public var feedbackSent: Int = 0
    /// Transport-wide feedback messages received from the peer (about packets carrying our sequence numbers).
    public var feedbackReceived: Int = 0
    /// Packet statuses in the feedback received, and how many of them said "not received".
    public var packetsReportedByPeer: Int = 0
    public var packetsReportedLostByPeer: Int = 0
    /// Our RTP packets (audio, video, retransmissions) stamped with a transport-wide sequence number.
    public var packetsStamped: Int = 0
    /// The send-side bandwidth estimate from the peer's feedback (draft-ietf-rmcat-gcc-02) in bits per second; nil
    /// before the first feedback about our packets, or when we send nothing under transport-cc.
    public var estimatedBitrate: Int?

    public init(extensionID: UInt8? = nil, packetsRecorded: Int = 0, feedbackSent: Int = 0, feedbackReceived: Int = 0,
                packetsReportedByPeer: Int = 0, packetsReportedLostByPeer: Int = 0, packetsStamped: Int = 0,
                estimatedBitrate: Int? = nil) {
        self.packetsStamped = packetsStamped
        self.estimatedBitrate = estimatedBitrate
        self.extensionID = extensionID
        self.packetsRecorded = packetsRecorded
        self.feedbackSent = feedbackSent
        self.feedbackReceived = feedbackReceived
        self.packetsReportedByPeer = packetsReportedByPeer
        self.packetsReportedLostByPeer = packetsReportedLostByPeer
    }
}
