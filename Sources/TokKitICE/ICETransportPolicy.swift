/// Which candidates may be used (`RTCIceTransportPolicy`).
///
/// Value type, usable from any thread.
public enum ICETransportPolicy: Sendable, Hashable {
    /// Every candidate type.
    case all
    /// Only relayed (TURN) candidates: hides local addresses from the peer.
    case relay
}
