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
    /// Whether ``Session/publish(_:)`` is allowed (publisher, publisher-only and moderator roles).
    public var canPublish: Bool
    /// Whether ``Session/subscribe(_:)`` is allowed (every role but publisher-only).
    public var canSubscribe: Bool
    /// Whether ``Session/signal(type:data:to:retryAfterReconnect:)`` is allowed (publisher and moderator roles).
    public var canSignal: Bool
    /// Whether ``Session/forceMute(_:)`` is allowed (moderator role).
    public var canForceMute: Bool
    /// Whether ``Session/forceDisconnect(_:)`` and ``Session/forceUnpublish(_:)`` are allowed (moderator role).
    public var canForceDisconnect: Bool

    /// Capabilities as given; the session derives its own from the token's role.
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
