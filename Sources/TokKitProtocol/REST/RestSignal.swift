/// Body of the REST signal calls (OpenTok's `{"type", "data"}`). Same limits as WebSocket signals.
public struct RestSignal: Codable, Hashable, Sendable {
    public var type: String?
    public var data: String?
    public init(type: String? = nil, data: String? = nil) {
        self.type = type
        self.data = data
    }
}
