import Crypto
import TokKitProtocol

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// HS256 JSON Web Signatures in compact form (`header.payload.signature`, RFC 7515), the format of client tokens and
/// admin JWTs. Signing and constant-time verification are swift-crypto's HMAC-SHA256. Stateless, thread-safe.
enum CompactJWS {
    /// The only header TokKit emits; verification accepts any header whose `alg` is `HS256`.
    static let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
    /// Longest token accepted, in bytes.
    static let maxLength = 4_096

    private struct Header: Decodable {
        var alg: String
    }

    static func sign(payload: [UInt8], key: SymmetricKey) -> String {
        let signingInput = header + "." + Base64URL.encode(payload)
        let mac = HMAC<SHA256>.authenticationCode(for: Array(signingInput.utf8), using: key)
        return signingInput + "." + Base64URL.encode(mac)
    }

    /// Verifies structure, `alg`, signature and that neither header nor payload has a key twice in one object (a
    /// decoder would keep one of the two values); returns the payload JSON. Every failure is
    /// ``ErrorCode/authorizationFailure`` (the message says which check failed, for logs).
    static func verify(_ token: String, key: SymmetricKey) throws(ProtocolError) -> [UInt8] {
        guard token.utf8.count <= maxLength else { throw refused("token too long") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else { throw refused("token is not header.payload.signature") }
        guard let headerJSON = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2])
        else { throw refused("token is not base64url") }
        guard JSONDuplicateKeys.first(in: headerJSON) == nil,
              let header = try? JSONDecoder().decode(Header.self, from: Data(headerJSON)), header.alg.isSameBytes(as: "HS256")
        else { throw refused("token algorithm must be HS256") }
        guard signature.count == SHA256.byteCount else { throw refused("token signature has the wrong length") }
        let signingInput = token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count)
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Array(signingInput), using: key) else {
            throw refused("token signature does not match")
        }
        if let key = JSONDuplicateKeys.first(in: payload) {
            throw refused("token claims name \"\(key.prefix(64))\" twice")
        }
        return payload
    }

    static func refused(_ message: String) -> ProtocolError {
        ProtocolError(.authorizationFailure, message)
    }
}
