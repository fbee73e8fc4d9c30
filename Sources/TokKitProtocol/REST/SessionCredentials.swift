/// Body of `GET /session` and `GET /room/{name}` (the tutorial web service): everything a client needs to connect.
public struct SessionCredentials: Codable, Hashable, Sendable {
    public var apiKey: String
    public var sessionId: String
    public var token: String
    public init(apiKey: String, sessionId: String, token: String) {
        self.apiKey = apiKey
        self.sessionId = sessionId
        self.token = token
    }
}
