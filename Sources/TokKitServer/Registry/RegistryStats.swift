/// Counts of everything the registry holds, for tests and monitoring (leak checks: all zero but `sessions` after
/// every client left). Value type, `Sendable`.
public struct RegistryStats: Hashable, Sendable, CustomStringConvertible {
    public var sessions = 0
    public var connecting = 0
    public var connected = 0
    public var awaitingResume = 0
    public var sockets = 0
    public var streams = 0
    public var subscriptions = 0
    /// WebSocket handler tasks currently running (one per accepted socket, until it is fully closed).
    public var socketTasks = 0
    /// TCP connections open, HTTP and WebSocket (what ``ServerConfiguration/maxConnections`` caps).
    public var tcpConnections = 0

    public init() {}

    /// Connections in any state.
    public var connections: Int { connecting + connected + awaitingResume }

    public var description: String {
        "sessions \(sessions), connecting \(connecting), connected \(connected), awaitingResume \(awaitingResume), "
            + "sockets \(sockets), streams \(streams), subscriptions \(subscriptions), socketTasks \(socketTasks), "
            + "tcpConnections \(tcpConnections)"
    }
}
