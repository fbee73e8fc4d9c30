/// Body of `POST /session/create` (admin). Absent fields take the defaults `relayed` and `manual`.
/// `always` archiving requires `routed` media (as in OpenTok).
public struct CreateSessionRequest: Codable, Hashable, Sendable {
    public var mediaMode: MediaMode?
    public var archiveMode: ArchiveMode?
    public init(mediaMode: MediaMode? = nil, archiveMode: ArchiveMode? = nil) {
        self.mediaMode = mediaMode
        self.archiveMode = archiveMode
    }
}
