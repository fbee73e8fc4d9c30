/// Media direction attributes (RFC 8866 §6.7, RFC 3264 §6.1). Absent means `sendrecv`.
public enum SDPDirection: String, Hashable, Sendable, CaseIterable {
    case sendrecv, sendonly, recvonly, inactive

    public var sends: Bool { self == .sendrecv || self == .sendonly }
    public var receives: Bool { self == .sendrecv || self == .recvonly }

    public init(sends: Bool, receives: Bool) {
        switch (sends, receives) {
        case (true, true): self = .sendrecv
        case (true, false): self = .sendonly
        case (false, true): self = .recvonly
        case (false, false): self = .inactive
        }
    }

    /// The direction an answerer may use for an offered direction, given what it wants (RFC 3264 §6.1): it can send
    /// only what the offerer receives, and receive only what the offerer sends.
    public func answer(wanting local: SDPDirection) -> SDPDirection {
        SDPDirection(sends: local.sends && receives, receives: local.receives && sends)
    }
}
