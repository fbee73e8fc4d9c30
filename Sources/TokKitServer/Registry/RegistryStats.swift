/// Counts of everything the registry holds, for tests and monitoring (leak checks: all zero but `sessions` after
/// every client left). Value type, `Sendable`.
public struct RegistryStats: Hashable, Sendable, CustomStringConvertible {
    /// Sessions held (created by REST, quick start, or `createSession()`, not yet expired).
    public var sessions = 0
    /// Connections whose socket opened but whose `connect` was not answered yet.
    public var connecting = 0
    /// Connections connected to a session.
    public var connected = 0
    /// Connections whose socket dropped and that may still resume within the grace period.
    public var awaitingResume = 0
    /// Signaling WebSockets, each attached to one connection.
    public var sockets = 0
    /// Streams published, over all sessions.
    public var streams = 0
    /// Subscriptions, over all sessions.
    public var subscriptions = 0
    /// WebSocket handler tasks currently running (one per accepted socket, until it is fully closed).
    public var socketTasks = 0
    /// TCP connections open, HTTP and WebSocket (what ``ServerConfiguration/maxConnections`` caps).
    public var tcpConnections = 0

    /// All counts at zero.
    public init() {}

    /// Connections in any state.
    public var connections: Int { connecting + connected + awaitingResume }

    /// Every count on one line, e.g. `sessions 1, connecting 0, connected 2, …`.
    public var description: String {
        "sessions \(sessions), connecting \(connecting), connected \(connected), awaitingResume \(awaitingResume), "
            + "sockets \(sockets), streams \(streams), subscriptions \(subscriptions), socketTasks \(socketTasks), "
            + "tcpConnections \(tcpConnections)"
    }
}
