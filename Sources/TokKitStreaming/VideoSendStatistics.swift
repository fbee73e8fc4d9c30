/// A snapshot of a ``VideoSendPipeline``'s counters and rates.
///
/// Value type, usable from any thread. Rates are measured over the last whole second.
public struct VideoSendStatistics: Hashable, Sendable {
    /// Frames handed to the pipeline by the capturer.
    public var framesCaptured = 0
    /// Frames the encoder produced (once per frame, however many peers are attached).
    public var framesEncoded = 0
    /// Of those, keyframes.
    public var keyframesEncoded = 0
    /// Frames not encoded: replaced in the mailbox by a newer one, pool exhausted, conversion or encoder error.
    public var framesDropped = 0
    /// Of ``framesDropped``, frames not encoded because the send queue was behind by more than
    /// ``SendBacklogGate/maximumBacklog`` at the pacing rate, or more than half full (the frame dropper).
    public var framesSkippedForBacklog = 0
    /// Of ``framesSkippedForBacklog``, those skipped because the send queue was more than half full.
    public var framesSkippedForQueueRoom = 0
    /// Frames not queued because the send queue had fewer free slots than their packets (each asks for a keyframe;
    /// a frame goes into the queue whole or not at all).
    public var sendQueueOverflows = 0
    /// Frames rendered to the preview renderer.
    public var framesPreviewed = 0
    /// Encoded bytes (VP8 payload, before packetization).
    public var bytesEncoded: UInt64 = 0
    /// RTP packets sent, summed over peers.
    public var packetsSent = 0
    /// `sendRTP` calls that failed (peer not connected yet, closed).
    public var sendErrors = 0
    /// Keyframes asked for (new peer, PLI, FIR, re-enable).
    public var keyframeRequests = 0
    /// Peers' PLI/FIR ignored: within ``VideoSendPipeline/peerKeyframeInterval`` of the last one answered.
    public var keyframeRequestsIgnored = 0
    /// Keyframes made in place of repairs a peer asked for and was refused, the path being overloaded
    /// (``TokKitPeer/RTCPFeedback/repairsDeclined``); not counted in ``keyframeRequests``.
    public var keyframesForDeclinedRepairs = 0
    /// Such reports that came within ``VideoSendPipeline/peerKeyframeInterval`` of the last keyframe made for a
    /// peer or a declined repair: the keyframe on its way answers them; not counted in ``keyframeRequestsIgnored``.
    public var declinedRepairReportsIgnored = 0
    /// Encoded frames per second.
    public var framesPerSecond: Double = 0
    /// Encoded bits per second.
    public var bitrate: Double = 0
    /// Wall-clock time spent in the VP8 encoder for the frames it produced, conversion, preview, packetizing and
    /// sending left out (WebRTC's `totalEncodeTime`); divided by ``framesEncoded``, the mean encode time.
    public var totalEncodeTime: Duration = .zero
    /// The bitrate the encoder was last set to (bits per second): ``VideoEncodeSettings/bitrate`` capped by the
    /// lowest peer estimate (REMB or send-side); 0 before the first encode.
    public var targetBitrate = 0
    /// The size the full-size layer is encoded at (0 before the first encoder): the configured size, or smaller while
    /// the bitrate cannot carry it (``VideoEncodeSettings/adaptsResolution``; WebRTC's `frameWidth`/`frameHeight`).
    public var encodedWidth = 0
    public var encodedHeight = 0
    /// Times the encoded size changed for the bitrate (WebRTC's `qualityLimitationResolutionChanges`).
    public var resolutionChanges = 0
    /// Peers currently attached.
    public var peers = 0

    public init() {}
}
