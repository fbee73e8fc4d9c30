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
    /// The first RTP packet of the peer's `kind` section was received and accepted (decrypted, demultiplexed,
    /// counted): media flows. Once per kind and connection, at most; never when no media arrives. Sent from the
    /// network thread as the packet arrives (before its receive handler runs), so it may come before
    /// ``stateChanged(_:)`` with ``PeerConnectionState/connected``, which is reported from a task.
    case firstMediaPacket(MediaKind)
}
