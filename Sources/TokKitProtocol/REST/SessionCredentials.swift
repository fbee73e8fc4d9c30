/// Body of `GET /session` and `GET /room/{name}` (the tutorial web service): everything a client needs to connect.
public struct SessionCredentials: Codable, Hashable, Sendable {
    public var apiKey: String
    public var sessionID: String
    public var token: String
    public init(apiKey: String, sessionID: String, token: String) {
        self.apiKey = apiKey
        self.sessionID = sessionID
        self.token = token
    }

    enum CodingKeys: String, CodingKey {
        case apiKey
        case sessionID = "sessionId"
        case token
    }
}
