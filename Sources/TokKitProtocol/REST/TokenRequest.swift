/// Body of `POST /v2/project/{apiKey}/session/{sessionId}/token` (admin), OpenTok's `generateToken` options.
///
/// `role` defaults to `publisher`; `expireTime` (seconds since the Unix epoch) defaults to now + 24 h and must be
/// in the future and at most 30 days ahead; `data` (connection data) is at most 1000 characters.
public struct TokenRequest: Codable, Hashable, Sendable {
    public var role: Role?
    public var expireTime: Int64?
    public var data: String?
    public init(role: Role? = nil, expireTime: Int64? = nil, data: String? = nil) {
        self.role = role
        self.expireTime = expireTime
        self.data = data
    }
}
