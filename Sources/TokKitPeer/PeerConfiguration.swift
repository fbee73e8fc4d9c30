import TokKitICE

/// What a ``PeerConnection`` sends and how it reaches the network.
///
/// Value type, usable from any thread.
public struct PeerConfiguration: Sendable, Hashable {
    /// ICE servers, policy and host addresses (``ICEConfiguration/loopback`` for tests).
    public var ice: ICEConfiguration
    /// The SSRC of our audio stream, or nil to only receive audio.
    public var audioSSRC: UInt32?
    /// The SSRC of our video stream, or nil to only receive video.
    public var videoSSRC: UInt32?
    /// Simulcast: the SSRCs of the smaller video layers, smallest first (at most two); ``videoSSRC`` is the
    /// full-size layer. Signalled as `a=ssrc-group:SIM` (``SDPLocalMedia/Track/simulcastSSRCs``); each layer is
    /// sent with ``PeerConnection/sendVideoLayerRTP(_:payload:timestamp:marker:)``. Empty (the default): one layer.
    public var videoSimulcastSSRCs: [UInt32] = []
    /// Whether we want the peer's audio / video. Together with the SSRCs this sets each section's direction
    /// (RFC 3264 §5.1): an SSRC and no receiving is `sendonly` (a publisher), receiving and no SSRC `recvonly`
    /// (a subscriber), both `sendrecv`, neither `inactive` (the section is still offered, so its mid stays).
    public var receivesAudio: Bool
    public var receivesVideo: Bool
    /// RTCP CNAME shared by our streams (RFC 7022).
    public var cname: String
    /// MediaStream id written in `a=msid`.
    public var streamID: String
    /// Interval of automatic RTCP SR/RR once connected; nil sends reports only on ``PeerConnection/sendReports()``.
    public var rtcpInterval: Duration?
    /// Interval of transport-wide congestion control feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01)
    /// about the peer's packets, once connected; nil does not negotiate transport-cc (no `a=extmap` for the
    /// transport-wide sequence number, no `transport-cc` feedback), and a sender such as Chromium then keeps its
    /// bandwidth estimate near its start value.
    public var transportFeedbackInterval: Duration?
    /// Whether to offer and accept redundant audio (RFC 2198 `red` for Opus, as Chromium offers it): negotiated
    /// only when both ends want it; each Opus payload then goes again in the next packet, so a receiver recovers
    /// any single lost packet (``PeerConnection/audioRedundancyPayloadTypes``). Off by default; TokKit's sessions
    /// turn it on between peers, not towards the media router.
    public var audioRedundancy = false
    /// Bounds of the send-side bandwidth estimate (bits per second) made from the peer's transport-wide feedback
    /// when transport-cc is negotiated (``PeerConnection/transportFeedbackStatistics``). The estimate starts at the
    /// upper bound (there is no probing: the sender starts at its configured bitrate and only congestion brings it
    /// down); the video send pipeline caps its encoder by it.
    public var bandwidthEstimateBounds: ClosedRange<Int> = 50_000 ... 10_000_000

    public init(ice: ICEConfiguration = .loopback, audioSSRC: UInt32? = UInt32.random(in: 1...UInt32.max),
                videoSSRC: UInt32? = UInt32.random(in: 1...UInt32.max), cname: String = "tokkit",
                streamID: String = "tokkit", rtcpInterval: Duration? = .seconds(1),
                transportFeedbackInterval: Duration? = .milliseconds(50), receivesAudio: Bool = true,
                receivesVideo: Bool = true) {
        self.ice = ice
        self.audioSSRC = audioSSRC
        self.videoSSRC = videoSSRC
        self.cname = cname
        self.streamID = streamID
        self.rtcpInterval = rtcpInterval
        self.transportFeedbackInterval = transportFeedbackInterval
        self.receivesAudio = receivesAudio
        self.receivesVideo = receivesVideo
    }
}
