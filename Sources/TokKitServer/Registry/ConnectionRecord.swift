import TokKitProtocol

/// One connection in the registry. Created `connecting` when a socket opens; `membership` is set once `connect`
/// succeeds. `socket`/`outbox`/`label`/`activity` are present exactly while a socket is attached.
struct ConnectionRecord: Sendable {
    /// Session membership, established by `connect`.
    struct Membership: Sendable {
        let sessionID: String
        let role: Role
        let info: ConnectionInfo
        var resumeToken: String
        /// Invisible to the other members (``TokenClaims/hidden``): never announced, listed or said goodbye to.
        var hidden = false
    }

    let id: String
    var state: ConnectionState
    var socket: SocketID?
    var outbox: Outbox?
    /// The attached socket's log label (its handler's lines carry the ids set here).
    var label: ConnectionLabel?
    /// When the registry last handled a message from it.
    var lastSeen: ContinuousClock.Instant
    /// When the attached socket last received bytes, stamped as they arrive (ahead of `lastSeen` when the server is
    /// busy); nil in tests that drive the registry without a socket.
    var activity: SocketActivity?
    var membership: Membership?
    /// Streams this connection publishes, oldest first.
    var streamIDs: [String] = []
    /// Subscriptions this connection holds as subscriber, oldest first.
    var subscriberIDs: [String] = []

    /// The last sign of life: the later of the last message handled and the last bytes received.
    var lastHeard: ContinuousClock.Instant {
        guard let activity else { return lastSeen }
        return max(lastSeen, activity.lastHeard)
    }
}
