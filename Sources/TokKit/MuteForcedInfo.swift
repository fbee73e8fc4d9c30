/// Details of a moderator's force-mute, as the SDK's `OTMuteForcedInfo`.
public struct MuteForcedInfo: Sendable, Hashable {
    /// True when the moderator muted the session (and new publishers start muted); false when it lifted that.
    public var active: Bool

    public init(active: Bool) { self.active = active }
}
