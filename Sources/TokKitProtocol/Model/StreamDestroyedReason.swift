/// Why a stream ended (`streamDestroyed.reason`).
///
/// `unpublished`: its publisher sent `unpublish`. `forceUnpublished`: a moderator ended it. The other three mirror
/// ``DisconnectReason``: the owning connection left.
public enum StreamDestroyedReason: String, Codable, Sendable, CaseIterable {
    case unpublished
    case forceUnpublished
    case clientDisconnected
    case forceDisconnected
    case networkDisconnected

    /// The stream reason matching a connection's departure.
    public init(_ reason: DisconnectReason) {
        switch reason {
        case .clientDisconnected: self = .clientDisconnected
        case .forceDisconnected: self = .forceDisconnected
        case .networkDisconnected: self = .networkDisconnected
        }
    }
}
