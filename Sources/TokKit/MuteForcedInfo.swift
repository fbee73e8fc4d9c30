/// Details of a moderator's force-mute, as the SDK's `OTMuteForcedInfo`.
public struct MuteForcedInfo: Sendable, Hashable {
    /// True when the moderator muted the session (and new publishers start muted); false when it lifted that.
    public var active: Bool

    /// Details of a force-mute that started (`active` true) or was lifted.
    public init(active: Bool) { self.active = active }
}
