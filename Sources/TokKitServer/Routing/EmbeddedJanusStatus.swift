/// What a server's embedded Janus is doing (``TokKitServer/embeddedJanusStatus()``): for monitoring and tests.
/// Holds no secret.
public struct EmbeddedJanusStatus: Sendable, Hashable {
    /// Where the supervisor is.
    public enum State: String, Sendable, Hashable {
        /// Not started yet (the server has not started).
        case idle
        /// Janus is being started (first start).
        case starting
        /// Janus runs and answered.
        case running
        /// Janus died; the supervisor waits (backoff) or is starting it again.
        case restarting
        /// Janus died and ``EmbeddedJanusSettings/restarts`` is off.
        case exited
        /// The server stopped it.
        case stopped
    }

    /// The supervisor's state.
    public var state: State
    /// The running Janus's process id, if one runs.
    public var pid: Int32?
    /// Janus's WebSocket API (`ws://127.0.0.1:PORT`).
    public var url: String
    /// The address Janus uses for ICE.
    public var mediaAddress: String
    /// The running Janus's generated configuration folder (removed when it stops), if one runs.
    public var configurationDirectory: String?
    /// How many times Janus was started again after dying.
    public var restarts: Int
    /// The exit status of the last Janus that died (a signal's number for a kill), if any.
    public var lastExitStatus: Int32?
}
