/// The DTLS role attribute `a=setup` (RFC 4145 §4, for DTLS-SRTP RFC 8842 §5). `active` is the DTLS client.
public enum SDPSetupRole: String, Hashable, Sendable {
    case active, passive, actpass, holdconn

    /// The role an answerer takes for this offered role (RFC 8842 §5.3: answer `actpass` with `active`
    /// unless told otherwise). `holdconn` cannot be answered.
    public func answer(preferring preferred: SDPSetupRole = .active) throws(SDPError) -> SDPSetupRole {
        switch self {
        case .actpass:
            guard preferred == .active || preferred == .passive else { throw .unsupportedSetupRole(preferred.rawValue) }
            return preferred
        case .active: return .passive
        case .passive: return .active
        case .holdconn: throw .unsupportedSetupRole(rawValue)
        }
    }
}
