/// What a token allows its connection to do. Wire values: `subscriber`, `publisher`, `publisher-only`, `moderator`.
///
/// | role            | subscribe | publish | signal | force disconnect / unpublish / mute |
/// |-----------------|-----------|---------|--------|-------------------------------------|
/// | subscriber      | yes       | no      | no     | no                                  |
/// | publisher       | yes       | yes     | yes    | no                                  |
/// | publisher-only  | no        | yes     | no     | no                                  |
/// | moderator       | yes       | yes     | yes    | yes                                 |
public enum Role: String, Codable, Sendable, CaseIterable {
    case subscriber
    case publisher
    case publisherOnly = "publisher-only"
    case moderator

    public var maySubscribe: Bool { self != .publisherOnly }
    public var mayPublish: Bool { self != .subscriber }
    public var maySignal: Bool { self == .publisher || self == .moderator }
    /// Force disconnect, force unpublish and force mute.
    public var mayModerate: Bool { self == .moderator }
}
