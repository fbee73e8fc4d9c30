import Crypto
import TokKitProtocol

/// Issues and verifies the project's credentials: client tokens (HS256 JWTs carrying ``TokenClaims``), admin JWTs
/// and the `apiKey:apiSecret` partner header. Comparisons of secrets are constant-time (HMAC verification); the API
/// key, `iss` and `ist` are compared byte for byte (never with `String ==`, which is canonical equivalence); claims
/// JSON with a key given twice is refused.
///
/// Immutable value, `Sendable`, safe from any thread. Times are seconds since the Unix epoch, passed in so callers
/// and tests control the clock.
public struct TokenAuthority: Sendable {
    /// The project's API key, which tokens name.
    public let apiKey: String
    private let secret: [UInt8]
    private let partnerCredential: [UInt8]

    /// The HMAC key (rebuilt per use: swift-crypto's `SymmetricKey` is not `Sendable`).
    private var key: SymmetricKey { SymmetricKey(data: secret) }

    /// Tokens issued in the future by more than this are refused (clock skew allowance), in seconds.
    public static let clockSkew: Int64 = ProtocolLimits.tokenClockSkew
    /// Longest admin JWT lifetime, in seconds.
    public static let maxAdminLifetime: Int64 = ProtocolLimits.maxAdminTokenLifetime

    /// An authority for the project `apiKey`, signing and verifying with `apiSecret`.
    public init(apiKey: String, apiSecret: String) {
        self.apiKey = apiKey
        secret = Array(apiSecret.utf8)
        partnerCredential = Array("\(apiKey):\(apiSecret)".utf8)
    }

    /// Issues a token for `sessionID` after checking the request against the protocol's limits
    /// (lifetime 1 s ... 30 days, connection data at most 1000 characters). Does not check that the session exists.
    public func issue(
        sessionID: String, role: Role = .publisher, expireTime: Int64? = nil, connectionData: String = "",
        now: Int64
    ) throws(ProtocolError) -> IssuedToken {
        try issue(sessionID: sessionID, role: role, expireTime: expireTime, connectionData: connectionData,
                  hidden: false, now: now)
    }

    /// A subscriber token for a connection the session's other members never see (``TokenClaims/hidden``): the
    /// server's own archive recorder. Subscriber only: a hidden publisher's streams would name a connection
    /// nobody knows.
    func issueHidden(sessionID: String, now: Int64) throws(ProtocolError) -> IssuedToken {
        try issue(sessionID: sessionID, role: .subscriber, hidden: true, now: now)
    }

    private func issue(
        sessionID: String, role: Role, expireTime: Int64? = nil, connectionData: String = "", hidden: Bool,
        now: Int64
    ) throws(ProtocolError) -> IssuedToken {
        let expiry = try Validation.tokenExpiry(expireTime, now: now)
        try Validation.connectionData(connectionData)
        let claims = TokenClaims(
            apiKey: apiKey, sessionID: sessionID, role: role, issuedAt: now, expiresAt: expiry,
            nonce: RandomID.make(bytes: 16), connectionData: connectionData, hidden: hidden ? true : nil)
        return IssuedToken(token: sign(claims), sessionID: sessionID, role: role, expireTime: expiry)
    }

    /// Signs arbitrary claims without any check (for tests and tools that need unusual tokens).
    public func sign(_ claims: TokenClaims) -> String {
        CompactJWS.sign(payload: WireCodec.encode(claims), key: key)
    }

    /// Signs an arbitrary JSON payload (tests of malformed claims).
    func sign(payload: [UInt8]) -> String {
        CompactJWS.sign(payload: payload, key: key)
    }

    /// Verifies a client token: signature, algorithm, claims, API key, expiry and limits. Every failure is
    /// ``ErrorCode/authorizationFailure``. The caller still checks the session.
    public func verify(_ token: String, now: Int64) throws(ProtocolError) -> TokenClaims {
        try TokenClaims.verified(payload: try CompactJWS.verify(token, key: key), apiKey: apiKey, now: now)
    }

    /// Makes an admin JWT valid for `lifetime` seconds (at most ``maxAdminLifetime``).
    public func adminToken(now: Int64, lifetime: Int64 = 180) -> String {
        let claims = AdminClaims(
            iss: apiKey, ist: "project", iat: now, exp: now.saturatingAdding(min(lifetime, Self.maxAdminLifetime)),
            jti: RandomID.make(bytes: 16))
        return CompactJWS.sign(payload: WireCodec.encode(claims), key: key)
    }

    /// Verifies an admin JWT (`X-OPENTOK-AUTH`).
    public func verifyAdmin(_ token: String, now: Int64) throws(ProtocolError) {
        _ = try AdminClaims.verified(payload: try CompactJWS.verify(token, key: key), apiKey: apiKey, now: now)
    }

    /// True when `candidate` is this project's API key, byte for byte (U+212A KELVIN SIGN is not "K").
    public func isAPIKey(_ candidate: String) -> Bool {
        candidate.isSameBytes(as: apiKey)
    }

    /// Verifies an `X-TB-PARTNER-AUTH` value (`apiKey:apiSecret`) in constant time.
    public func verifyPartner(_ credential: String) throws(ProtocolError) {
        guard Self.constantTimeEqual(Array(credential.utf8), partnerCredential, key: key) else {
            throw CompactToken.refused("wrong API key or secret")
        }
    }

    /// Equality of two secrets in time independent of where they differ: compares their HMACs with swift-crypto's
    /// constant-time MAC check.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8], key: SymmetricKey) -> Bool {
        let macOfB = HMAC<SHA256>.authenticationCode(for: b, using: key)
        return HMAC<SHA256>.isValidAuthenticationCode(macOfB, authenticating: a, using: key)
    }

    /// Constant-time equality of two secrets (resume tokens) under this authority's key.
    func secretsMatch(_ a: String, _ b: String) -> Bool {
        Self.constantTimeEqual(Array(a.utf8), Array(b.utf8), key: key)
    }
}
