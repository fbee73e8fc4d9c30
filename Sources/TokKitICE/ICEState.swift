/// The state of an ``ICEAgent``'s single component, named as in `RTCIceConnectionState`.
///
/// Value type, usable from any thread.
public enum ICEState: Sendable, Hashable {
    /// Created; gathering or waiting for remote candidates.
    case new
    /// Connectivity checks are running.
    case checking
    /// A pair works: datagrams can be sent.
    case connected
    /// Connectivity (or consent, RFC 7675) was lost; it may come back, or a restart is needed.
    case disconnected
    /// Every pair failed after the peer's end-of-candidates, consent expired, or gathering ended without a single
    /// local candidate (relay-only with every TURN server refusing or unreachable).
    case failed
    /// ``ICEAgent/close()`` was called. Terminal.
    case closed
}
