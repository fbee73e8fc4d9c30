/// What an ``IceAgent`` reports on its ``IceAgent/events`` stream, in order.
///
/// Value type, usable from any thread.
public enum IceEvent: Sendable, Hashable {
    /// A local candidate to trickle to the peer (RFC 8838).
    case localCandidate(IceCandidate)
    /// Gathering finished: signal end-of-candidates to the peer.
    case gatheringComplete
    /// The component's state changed.
    case stateChanged(IceState)
    /// A new pair was selected: media now takes this path.
    case selectedPair(IceCandidatePair)
}
