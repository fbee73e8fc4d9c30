/// A local ICE candidate as delivered by ``ICEEvent/localCandidate(_:)``.
///
/// Value type, usable from any thread.
public struct ICECandidate: Sendable, Hashable {
    /// The kind of candidate (RFC 8445 §5.1.1).
    public enum Kind: Sendable, Hashable {
        /// An address of a local interface.
        case host
        /// The address a STUN server saw (NAT mapping).
        case serverReflexive
        /// Learned from a peer's connectivity check.
        case peerReflexive
        /// An address allocated on a TURN server.
        case relayed
    }

    /// The SDP attribute value, `candidate:<foundation> 1 UDP <priority> <address> <port> typ <kind> …`
    /// (what goes after `a=` in SDP and into `RTCIceCandidate.candidate`).
    public let sdp: String
    /// The candidate's kind.
    public let kind: Kind
    /// The transport address, numeric.
    public let address: String
    /// The transport port.
    public let port: UInt16

    /// Creates a candidate description.
    public init(sdp: String, kind: Kind, address: String, port: UInt16) {
        self.sdp = sdp
        self.kind = kind
        self.address = address
        self.port = port
    }
}
