/// Reply to a token request: the token and what it grants (`expireTime` in seconds since the Unix epoch).
public struct IssuedToken: Codable, Hashable, Sendable {
    public var token: String
    public var sessionId: String
    public var role: Role
    public var expireTime: Int64
    public init(token: String, sessionId: String, role: Role, expireTime: Int64) {
        self.token = token
        self.sessionId = sessionId
        self.role = role
        self.expireTime = expireTime
    }
}
