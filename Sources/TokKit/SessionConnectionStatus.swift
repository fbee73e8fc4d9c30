/// Where a ``Session`` is in its life, as the SDK's `OTSessionConnectionStatus` (plus ``reconnecting``).
///
/// ```
/// notConnected ──connect──▶ connecting ──▶ connected ──disconnect──▶ disconnecting ──▶ notConnected
///                                │            │  ▲
///                                ▼            ▼  │ (same connection id)
///                              failed     reconnecting ──(retries exhausted / grace over)──▶ notConnected
/// ```
/// `failed` is reached when the first connection attempt fails; a failed session may `connect` again.
/// A plain value; read it from any thread through ``Session/sessionConnectionStatus``.
public enum SessionConnectionStatus: Sendable, Hashable, CustomStringConvertible {
    /// Not connected: before ``Session/connect(token:)``, after ``Session/disconnect()``, or after reconnecting failed.
    case notConnected
    /// ``Session/connect(token:)`` is under way.
    case connecting
    /// Connected: the session can publish, subscribe and signal as its role allows.
    case connected
    /// The WebSocket dropped and the session is resuming; ``Session/connection`` is kept.
    case reconnecting
    /// ``Session/disconnect()`` is under way.
    case disconnecting
    /// The first connection attempt failed; ``Session/connect(token:)`` may be called again.
    case failed

    /// The case's name, e.g. `connected`.
    public var description: String {
        switch self {
        case .notConnected: "notConnected"
        case .connecting: "connecting"
        case .connected: "connected"
        case .reconnecting: "reconnecting"
        case .disconnecting: "disconnecting"
        case .failed: "failed"
        }
    }
}
