import TokKitProtocol

/// Fuzz entry for the token verifier: every check of Docs/Protocol.md, 4 and 5.1 that needs no key
/// (``CompactToken``, ``TokenClaims/verified(payload:apiKey:now:)``, ``AdminClaims/verified(payload:apiKey:now:)``,
/// ``Base64URL``, ``JSONDuplicateKeys``); the HMAC itself is swift-crypto's. The first byte picks what the rest is:
///
/// - `0`: a token as it arrives (`connect.token`, `X-TB-TOKEN-AUTH`, `X-OPENTOK-AUTH`): parsed, and when it parses its
///   claims are read as if the signature had matched;
/// - `1`: client token claims JSON; `2`: admin claims JSON (the payload the fuzzer would hardly reach through
///   base64url), also wrapped into a token and parsed back;
/// - `3`: base64url text, decoded, and the bytes encoded.
///
/// Traps only when an invariant breaks: a refused input must be a 1004 ``ProtocolError``; an accepted one must
/// satisfy every rule (times with checked arithmetic, `iss` byte for byte, no key twice) and survive re-encoding.
public func fuzzToken(_ data: UnsafeRawBufferPointer) {
    guard let mode = data.first else { return }
    let rest = Array(data.dropFirst())
    switch mode % 4 {
    case 0: fuzzCompactToken(String(decoding: rest, as: UTF8.self))
    case 1:
        fuzzTokenClaims(rest)
        fuzzCompactToken(FuzzTokens.wrap(rest))
    case 2:
        fuzzAdminClaims(rest)
        fuzzCompactToken(FuzzTokens.wrap(rest))
    default: fuzzBase64URL(rest)
    }
}

/// Constants the token seeds (Fuzz/seeds/token) are made with.
public enum FuzzTokens {
    /// The API key of the seeds' `iss`.
    public static let apiKey = "test-key"
    /// A clock at which the seeds of Fuzz/seeds/token are valid (29 s after their `iat`, before every `exp`), so
    /// the fuzzer starts on the accepting path, and the extremes every input is also checked at.
    public static let nows: [Int64] = [1_795_684_800, 0, -1, .min, .max]

    /// `payload` as the middle of a token with TokKit's header and a 32-byte signature.
    static func wrap(_ payload: [UInt8]) -> String {
        Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode(payload) + "."
            + Base64URL.encode([UInt8](repeating: 0xA5, count: CompactToken.signatureBytes))
    }
}

private func fuzzCompactToken(_ text: String) {
    let token: CompactToken
    do throws(ProtocolError) {
        token = try CompactToken(parsing: text)
    } catch {
        precondition(error.code == .authorizationFailure, "token refused with \(error)")
        return
    }
    precondition(text.utf8.count <= ProtocolLimits.maxTokenBytes, "a token over the length limit parsed")
    precondition(token.signature.count == CompactToken.signatureBytes, "signature length")
    precondition(JSONDuplicateKeys.first(in: token.header) == nil, "a header naming a key twice parsed")
    // Canonical base64url: the parts encode back to exactly the token, and the signing input is its first two.
    let head = Base64URL.encode(token.header) + "." + Base64URL.encode(token.payload)
    precondition((head + "." + Base64URL.encode(token.signature)).utf8.elementsEqual(text.utf8), "canonical parts")
    precondition(token.signingInput.elementsEqual(head.utf8), "signing input")
    fuzzTokenClaims(token.payload)
    fuzzAdminClaims(token.payload)
}

private func fuzzTokenClaims(_ payload: [UInt8]) {
    for now in FuzzTokens.nows {
        let claims: TokenClaims
        do throws(ProtocolError) {
            claims = try TokenClaims.verified(payload: payload, apiKey: FuzzTokens.apiKey, now: now)
        } catch {
            precondition(error.code == .authorizationFailure, "claims refused with \(error)")
            continue
        }
        precondition(JSONDuplicateKeys.first(in: payload) == nil, "claims naming a key twice accepted")
        precondition(claims.apiKey.isSameBytes(as: FuzzTokens.apiKey), "iss")
        precondition(claims.expiresAt > now, "expired token accepted")
        precondition(claims.issuedAt <= now.saturatingAdding(ProtocolLimits.tokenClockSkew), "future iat accepted")
        let lifetime = claims.expiresAt.subtractingReportingOverflow(claims.issuedAt)
        precondition(!lifetime.overflow && lifetime.partialValue <= ProtocolLimits.maxTokenLifetime, "lifetime")
        precondition(claims.connectionData.unicodeScalars.count <= ProtocolLimits.maxConnectionDataLength, "data")
        let again = try? TokenClaims.verified(payload: WireCodec.encode(claims), apiKey: FuzzTokens.apiKey, now: now)
        precondition(again == claims, "accepted claims re-encode to other claims")
    }
}

private func fuzzAdminClaims(_ payload: [UInt8]) {
    for now in FuzzTokens.nows {
        let claims: AdminClaims
        do throws(ProtocolError) {
            claims = try AdminClaims.verified(payload: payload, apiKey: FuzzTokens.apiKey, now: now)
        } catch {
            precondition(error.code == .authorizationFailure, "admin claims refused with \(error)")
            continue
        }
        precondition(JSONDuplicateKeys.first(in: payload) == nil, "admin claims naming a key twice accepted")
        precondition(claims.iss.isSameBytes(as: FuzzTokens.apiKey) && claims.ist.isSameBytes(as: "project"), "iss/ist")
        precondition(claims.exp > now, "expired admin token accepted")
        let ahead = claims.exp.subtractingReportingOverflow(now)
        precondition(
            !ahead.overflow
                && ahead.partialValue <= ProtocolLimits.maxAdminTokenLifetime + ProtocolLimits.tokenClockSkew,
            "admin token living too long accepted")
        let again = try? AdminClaims.verified(payload: WireCodec.encode(claims), apiKey: FuzzTokens.apiKey, now: now)
        precondition(again == claims, "accepted admin claims re-encode to other claims")
    }
}

private func fuzzBase64URL(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    if let decoded = Base64URL.decode(text[...]) {
        precondition(Base64URL.encode(decoded) == text, "non-canonical base64url accepted")
    }
    let encoded = Base64URL.encode(bytes)
    precondition(Base64URL.decode(encoded[...]) == bytes, "base64url round trip")
    _ = JSONDuplicateKeys.first(in: bytes)
}
