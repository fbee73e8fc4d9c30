#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A compact JWS (`header.payload.signature`, RFC 7515; the form of client tokens and admin JWTs) taken apart,
/// its signature not yet checked.
///
/// Parsing checks everything that needs no key, in the order of Docs/Protocol.md, 4: length at most
/// ``ProtocolLimits/maxTokenBytes``, exactly three non-empty parts of canonical unpadded base64url, a 32-byte
/// signature, and a header JSON that names no key twice and whose `alg` is exactly `HS256`. The server then checks
/// ``signature`` against the HMAC of ``signingInput`` (swift-crypto) and only after that reads the claims
/// (``TokenClaims/verified(payload:apiKey:now:)``, ``AdminClaims/verified(payload:apiKey:now:)``).
///
/// Kept free of dependencies so that the token verifier can be fuzzed without swift-crypto (Docs/Fuzzing.md).
/// Every failure is a ``ProtocolError`` with ``ErrorCode/authorizationFailure``; nothing traps. Value type.
package struct CompactToken: Hashable, Sendable {
    /// The header JSON.
    package var header: [UInt8]
    /// The payload JSON (the claims), unread.
    package var payload: [UInt8]
    /// The signature bytes (``signatureBytes`` of them).
    package var signature: [UInt8]
    /// The bytes the signature covers: `base64url(header) "." base64url(payload)` exactly as in the token.
    package var signingInput: [UInt8]

    /// Length of an HMAC-SHA256 signature.
    package static let signatureBytes = 32

    private struct Header: Decodable {
        var alg: String
    }

    package init(parsing token: String) throws(ProtocolError) {
        guard token.utf8.count <= ProtocolLimits.maxTokenBytes else { throw Self.refused("token too long") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else {
            throw Self.refused("token is not header.payload.signature")
        }
        guard let header = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2])
        else { throw Self.refused("token is not base64url") }
        guard JSONDuplicateKeys.first(in: header) == nil,
              let decoded = try? JSONDecoder().decode(Header.self, from: Data(header)),
              decoded.alg.isSameBytes(as: "HS256")
        else { throw Self.refused("token algorithm must be HS256") }
        guard signature.count == Self.signatureBytes else { throw Self.refused("token signature has the wrong length") }
        self.header = header
        self.payload = payload
        self.signature = signature
        signingInput = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
    }

    /// The ``ErrorCode/authorizationFailure`` every refused token or admin JWT gets (`message` says which check
    /// failed, for logs).
    package static func refused(_ message: String) -> ProtocolError {
        ProtocolError(.authorizationFailure, message)
    }
}
