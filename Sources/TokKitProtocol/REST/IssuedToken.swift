/// Reply to a token request: the token and what it grants (`expireTime` in seconds since the Unix epoch).
public struct IssuedToken: Codable, Hashable, Sendable {
    public var token: String
    public var sessionID: String
    public var role: Role
    public var expireTime: Int64
    public init(token: String, sessionID: String, role: Role, expireTime: Int64) {
        self.token = token
        self.sessionID = sessionID
        self.role = role
        self.expireTime = expireTime
    }

    enum CodingKeys: String, CodingKey {
        case token
        case sessionID = "sessionId"
        case role
        case expireTime
    }
}
