import Crypto
import TokKitProtocol

/// HS256 JSON Web Signatures in compact form (`header.payload.signature`, RFC 7515), the format of client tokens and
/// admin JWTs. Signing and constant-time verification are swift-crypto's HMAC-SHA256; the checks that need no key
/// are TokKitProtocol's ``CompactToken`` (fuzzed on its own, Docs/Fuzzing.md). Stateless, thread-safe.
enum CompactJWS {
    /// The only header TokKit emits; verification accepts any header whose `alg` is `HS256`.
    static let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))

    static func sign(payload: [UInt8], key: SymmetricKey) -> String {
        let signingInput = header + "." + Base64URL.encode(payload)
        let mac = HMAC<SHA256>.authenticationCode(for: Array(signingInput.utf8), using: key)
        return signingInput + "." + Base64URL.encode(mac)
    }

    /// Verifies structure, `alg` and signature; returns the payload JSON, still to be read with
    /// ``TokenClaims/verified(payload:apiKey:now:)`` or ``AdminClaims/verified(payload:apiKey:now:)`` (which refuse
    /// a key named twice). Every failure is ``ErrorCode/authorizationFailure``.
    static func verify(_ token: String, key: SymmetricKey) throws(ProtocolError) -> [UInt8] {
        let parsed = try CompactToken(parsing: token)
        guard HMAC<SHA256>.isValidAuthenticationCode(parsed.signature, authenticating: parsed.signingInput, using: key)
        else { throw CompactToken.refused("token signature does not match") }
        return parsed.payload
    }
}
