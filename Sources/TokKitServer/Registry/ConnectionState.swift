/// The lifecycle of one connection record (Docs/Protocol.md, 6.2).
///
/// `connecting`: a socket is open, no valid `connect`/`resume` yet (must arrive before the deadline).
/// `connected`: member of a session with a live socket. `awaitingResume`: member whose socket was lost; destroyed at
/// the deadline unless resumed. `closed`: gone (records in this state are removed from the registry at once).
enum ConnectionState: Hashable, Sendable {
    case connecting(deadline: ContinuousClock.Instant)
    case connected
    case awaitingResume(deadline: ContinuousClock.Instant)
    case closed
}
