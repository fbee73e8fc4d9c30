import TokKitProtocol

/// One connection in the registry. Created `connecting` when a socket opens; `membership` is set once `connect`
/// succeeds. `socket`/`outbox`/`label` are present exactly while a socket is attached.
struct ConnectionRecord: Sendable {
    /// Session membership, established by `connect`.
    struct Membership: Sendable {
        let sessionID: String
        let role: Role
        let info: ConnectionInfo
        var resumeToken: String
    }

    let id: String
    var state: ConnectionState
    var socket: SocketID?
    var outbox: Outbox?
    /// The attached socket's log label (its handler's lines carry the ids set here).
    var label: ConnectionLabel?
    var lastSeen: ContinuousClock.Instant
    var membership: Membership?
    /// Streams this connection publishes, oldest first.
    var streamIDs: [String] = []
    /// Subscriptions this connection holds as subscriber, oldest first.
    var subscriberIDs: [String] = []
}
