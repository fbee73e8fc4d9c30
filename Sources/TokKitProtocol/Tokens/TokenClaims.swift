/// The claims of a TokKit client token (the middle part of `header.payload.signature`, base64url JSON).
///
/// Tokens are HMAC-SHA256 JWTs signed with the project's API secret; only the server signs and verifies them
/// (TokKitServer's `TokenAuthority`). This type lets clients read what a token grants. Value type, `Sendable`.
/// Times are seconds since the Unix epoch.
public struct TokenClaims: Codable, Hashable, Sendable {
    /// The API key (project) the token belongs to.
    public var apiKey: String
    /// The session the token admits to.
    public var sessionID: String
    public var role: Role
    /// Issued at.
    public var issuedAt: Int64
    /// Expires at; the token is refused at or after this instant.
    public var expiresAt: Int64
    /// A random value making every token unique.
    public var nonce: String
    /// Application data copied to the connection (`ConnectionInfo.data`).
    public var connectionData: String
    /// The connection is invisible to the session's other members (no `connectionCreated`, not in `connected`'s
    /// list, no `connectionDestroyed`), though it may subscribe: the server's own archive recorder. Only the
    /// server mints such tokens; absent in every other token.
    public var hidden: Bool?

    public init(
        apiKey: String, sessionID: String, role: Role, issuedAt: Int64, expiresAt: Int64, nonce: String,
        connectionData: String, hidden: Bool? = nil
    ) {
        self.apiKey = apiKey
        self.sessionID = sessionID
        self.role = role
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.nonce = nonce
        self.connectionData = connectionData
        self.hidden = hidden
    }

    enum CodingKeys: String, CodingKey {
        case apiKey = "iss"
        case sessionID = "session_id"
        case role
        case issuedAt = "iat"
        case expiresAt = "exp"
        case nonce
        case connectionData = "connection_data"
        case hidden
    }
}
