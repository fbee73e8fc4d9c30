/// What a ``PeerConnection`` reports on its ``PeerConnection/events`` stream, in order.
///
/// Value type, usable from any thread.
public enum PeerConnectionEvent: Sendable, Hashable {
    /// A local ICE candidate (`candidate:…`, the SDP attribute value) to trickle to the peer (RFC 8838).
    case localCandidate(String)
    /// Local gathering finished: signal end-of-candidates to the peer.
    case gatheringComplete
    /// The connection state changed.
    case stateChanged(PeerConnectionState)
}
