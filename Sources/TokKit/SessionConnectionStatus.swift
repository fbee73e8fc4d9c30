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
    case notConnected
    case connecting
    case connected
    case reconnecting
    case disconnecting
    case failed

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
