/// Why a connection left its session (`connectionDestroyed.reason`).
///
/// `clientDisconnected`: it sent `disconnect`. `forceDisconnected`: a moderator or the REST API removed it.
/// `networkDisconnected`: its socket was lost (or it went silent) and it did not resume within the grace period,
/// or the server shut down.
public enum DisconnectReason: String, Codable, Sendable, CaseIterable {
    case clientDisconnected
    case forceDisconnected
    case networkDisconnected
}
