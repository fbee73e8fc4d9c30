/// The ICE role (RFC 8445 §6.1.1): the controlling agent nominates the pair. The offerer is controlling
/// unless it is ICE-lite.
///
/// Value type, usable from any thread.
public enum ICERole: Sendable, Hashable {
    /// Nominates candidate pairs (usually the offerer).
    case controlling
    /// Follows the peer's nomination (usually the answerer).
    case controlled
}
