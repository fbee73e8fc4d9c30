/// What this client may do in the session, derived from the role in its token (the SDK's
/// `OTSessionCapabilities`, plus ``canSignal``). All false until the session is connected.
///
/// | role           | publish | subscribe | signal | force mute / disconnect |
/// |----------------|---------|-----------|--------|-------------------------|
/// | subscriber     |   no    |    yes    |   no   |           no            |
/// | publisher      |   yes   |    yes    |   yes  |           no            |
/// | publisher-only |   yes   |    no     |   no   |           no            |
/// | moderator      |   yes   |    yes    |   yes  |           yes           |
///
/// The session checks them before sending a request (failing with the code the server would use), and the
/// server checks them again. A plain value, safe on any thread.
public struct SessionCapabilities: Sendable, Hashable {
    public var canPublish: Bool
    public var canSubscribe: Bool
    public var canSignal: Bool
    public var canForceMute: Bool
    public var canForceDisconnect: Bool

    public init(canPublish: Bool, canSubscribe: Bool, canSignal: Bool, canForceMute: Bool,
                canForceDisconnect: Bool) {
        self.canPublish = canPublish
        self.canSubscribe = canSubscribe
        self.canSignal = canSignal
        self.canForceMute = canForceMute
        self.canForceDisconnect = canForceDisconnect
    }

    /// Nothing allowed: the capabilities of a session that is not connected.
    public static let none = SessionCapabilities(
        canPublish: false, canSubscribe: false, canSignal: false, canForceMute: false, canForceDisconnect: false)
}
