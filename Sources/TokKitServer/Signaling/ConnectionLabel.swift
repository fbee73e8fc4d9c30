import Logging
import Synchronization

/// Whose a signaling socket is, for its log lines: the id of the connection it carries and, once that connection
/// joined, its session's id, as swift-log metadata (``connectionKey``, ``sessionKey``; Docs/Server.md).
///
/// The socket's handler (``SignalingEndpoint``) creates one per socket and logs with ``metadata``; the
/// ``SessionRegistry`` keeps it with the connection record and sets it when the socket opens (a provisional
/// connection id), when `connect` succeeds (the session) and when a `resume` moves the socket to the connection it
/// resumes. The registry's own lines carry the same two keys. Thread-safe (`Sendable`): a `Mutex` guards the ids.
final class ConnectionLabel: Sendable {
    /// The metadata key of the connection id.
    static let connectionKey = "connection_id"
    /// The metadata key of the session id.
    static let sessionKey = "session_id"

    private let ids = Mutex<(connection: String?, session: String?)>((nil, nil))

    init() {}

    /// Labels the socket with `connection` and, when known, its `session`.
    func set(connection: String, session: String?) {
        ids.withLock { $0 = (connection, session) }
    }

    /// The metadata of a line about this socket (empty until the registry labelled it).
    var metadata: Logger.Metadata {
        Self.metadata(ids.withLock { $0 })
    }

    /// The two keys for `connection` and `session` (each left out when nil).
    static func metadata(_ ids: (connection: String?, session: String?)) -> Logger.Metadata {
        var metadata: Logger.Metadata = [:]
        if let connection = ids.connection { metadata[connectionKey] = .string(connection) }
        if let session = ids.session { metadata[sessionKey] = .string(session) }
        return metadata
    }
}
