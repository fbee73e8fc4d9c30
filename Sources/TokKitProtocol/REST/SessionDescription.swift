/// A session as the REST API returns it (reply to `POST /session/create`). `createdAt` is milliseconds since the
/// Unix epoch.
public struct SessionDescription: Codable, Hashable, Sendable {
    public var sessionID: String
    public var apiKey: String
    public var mediaMode: MediaMode
    public var archiveMode: ArchiveMode
    public var createdAt: Int64
    public init(sessionID: String, apiKey: String, mediaMode: MediaMode, archiveMode: ArchiveMode, createdAt: Int64) {
        self.sessionID = sessionID
        self.apiKey = apiKey
        self.mediaMode = mediaMode
        self.archiveMode = archiveMode
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case sessionID = "sessionId"
        case apiKey
        case mediaMode
        case archiveMode
        case createdAt
    }
}
