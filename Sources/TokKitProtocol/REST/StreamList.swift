/// Reply to `GET /v2/project/{apiKey}/session/{sessionId}/stream`: the session's live streams.
public struct StreamList: Codable, Hashable, Sendable {
    public var count: Int
    public var items: [StreamInfo]
    public init(items: [StreamInfo]) {
        self.count = items.count
        self.items = items
    }
}
