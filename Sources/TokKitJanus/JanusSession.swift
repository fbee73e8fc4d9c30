/// A Janus session on a ``JanusConnection``: the container of plugin handles, kept alive by a `keepalive` every
/// 25 s at most (started by ``JanusConnection/createSession(keepaliveInterval:)``).
///
/// It lives until ``destroy()``, until Janus ends it (`timeout`), until ``JanusConnection/maxKeepaliveFailures``
/// keepalives in a row fail (a paused Janus sends nothing), or until the connection closes; then its
/// handles' event streams end and requests on it fail with ``JanusError/sessionClosed(_:)`` (or the
/// connection's reason).
///
/// Threading: any method from any task.
public final class JanusSession: Sendable {
    /// Janus's session id.
    public let id: UInt64
    /// The connection it lives on.
    public let connection: JanusConnection

    private let end: JanusSessionEnd

    init(id: UInt64, connection: JanusConnection, end: JanusSessionEnd) {
        self.id = id
        self.connection = connection
        self.end = end
    }

    /// Waits until the session ends and returns why: ``JanusError/sessionClosed(_:)`` when Janus timed it out
    /// (missed keepalives), Janus's refusal when a keepalive found it gone, the last failure when
    /// ``JanusConnection/maxKeepaliveFailures`` keepalives in a row failed (e.g. Janus was paused: no reply, and
    /// no `timeout` event either), or the connection's close reason. Returns at once if it has ended already; any number of tasks may wait (a
    /// waiting task is not interrupted by cancellation: the session ends with its connection at the latest).
    public func ended() async -> JanusError {
        await end.wait()
    }

    /// Whether the session is still live (not destroyed, not timed out, connection open).
    public var isLive: Bool { connection.isLive(session: id) }

    /// Attaches a handle to `plugin` (e.g. `janus.plugin.videoroom`). Its events start flowing at once.
    public func attach(plugin: String, timeout: Duration? = nil) async throws(JanusError) -> JanusHandle {
        let reply = try await connection.send("attach", ["plugin": .string(plugin)], session: id, expect: .success,
                                              timeout: timeout)
        guard let handleID = reply.message["data"]?["id"]?.id else {
            throw .malformedReply("attach without data.id: \(JanusJSON.excerpt(reply.message.jsonText))")
        }
        guard let events = connection.register(handle: handleID, session: id) else {
            throw connection.closeReason ?? .sessionClosed(id)
        }
        return JanusHandle(id: handleID, session: self, plugin: plugin, events: events)
    }

    /// Destroys the session (Janus detaches its handles); its keepalive stops and its handles' streams end.
    /// Succeeds if the session is already gone.
    public func destroy(timeout: Duration? = nil) async throws(JanusError) {
        defer { connection.sessionEnded(id) }
        do throws(JanusError) {
            _ = try await connection.send("destroy", session: id, expect: .success, timeout: timeout)
        } catch {
            switch error {
            case .sessionClosed: return
            case .janus(let code, _) where code == JanusErrorCode.sessionNotFound: return
            default: throw error
            }
        }
    }
}
