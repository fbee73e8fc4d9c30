/// The state of a ``PeerConnection``, named as in `RTCPeerConnectionState`.
///
/// Value type, usable from any thread.
public enum PeerConnectionState: Sendable, Hashable {
    /// Created; no remote description yet.
    case new
    /// Remote description set: ICE checks and the DTLS handshake are running.
    case connecting
    /// ICE connected and DTLS-SRTP keyed with the peer's verified certificate: media flows.
    case connected
    /// ICE or DTLS failed (for example a certificate that does not match the SDP fingerprint). Terminal.
    case failed
    /// ``PeerConnection/close()`` was called. Terminal.
    case closed

    /// Whether no further change can happen.
    public var isTerminal: Bool { self == .failed || self == .closed }
}
