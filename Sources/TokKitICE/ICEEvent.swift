/// What an ``ICEAgent`` reports on its ``ICEAgent/events`` stream, in order.
///
/// Value type, usable from any thread.
public enum ICEEvent: Sendable, Hashable {
    /// A local candidate to trickle to the peer (RFC 8838).
    case localCandidate(ICECandidate)
    /// Gathering finished: signal end-of-candidates to the peer.
    case gatheringComplete
    /// The component's state changed.
    case stateChanged(ICEState)
    /// A new pair was selected: media now takes this path.
    case selectedPair(ICECandidatePair)
}
