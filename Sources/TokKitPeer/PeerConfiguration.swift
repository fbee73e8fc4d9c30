import TokKitICE

/// What a ``PeerConnection`` sends and how it reaches the network.
///
/// Value type, usable from any thread.
public struct PeerConfiguration: Sendable, Hashable {
    /// ICE servers, policy and host addresses (``IceConfiguration/loopback`` for tests).
    public var ice: IceConfiguration
    /// The SSRC of our audio stream, or nil to only receive audio.
    public var audioSSRC: UInt32?
    /// The SSRC of our video stream, or nil to only receive video.
    public var videoSSRC: UInt32?
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

    public init(ice: IceConfiguration = .loopback, audioSSRC: UInt32? = UInt32.random(in: 1...UInt32.max),
                videoSSRC: UInt32? = UInt32.random(in: 1...UInt32.max), cname: String = "tokkit",
                streamID: String = "tokkit", rtcpInterval: Duration? = .seconds(1),
                transportFeedbackInterval: Duration? = .milliseconds(50)) {
        self.ice = ice
        self.audioSSRC = audioSSRC
        self.videoSSRC = videoSSRC
        self.cname = cname
        self.streamID = streamID
        self.rtcpInterval = rtcpInterval
        self.transportFeedbackInterval = transportFeedbackInterval
    }
}
