import TokKitJanus

/// Why a ``TokKitServer`` could not start or a configuration could not be used.
public enum TokKitServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The configuration (flags or file) is invalid; the message says which field.
    case configuration(String)
    /// The listening socket could not be bound (address in use, bad host...).
    case bindFailed(host: String, port: Int, reason: String)
    /// `start()` was called on a server that is already running or was stopped.
    case alreadyStarted
    /// The server's own Janus (``ServerConfiguration/embeddedJanus``) could not be started: not installed
    /// (`notInstalled`), exited or never answered (`processFailed`, with the tail of its output), or its
    /// configuration cannot work (`invalidConfiguration`).
    case embeddedJanus(JanusError)

    /// A short English message with the field, address or state involved.
    public var description: String {
        switch self {
        case let .configuration(message): "invalid configuration: \(message)"
        case let .bindFailed(host, port, reason): "cannot listen on \(host):\(port): \(reason)"
        case .alreadyStarted: "server already started"
        case let .embeddedJanus(error): "cannot start the embedded Janus: \(error)"
        }
    }
}
