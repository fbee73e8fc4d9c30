#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension TokenClaims {
    /// The claims of a client token whose signature matched, checked as Docs/Protocol.md, 4 says: the JSON names no
    /// key twice in one object and has every claim with the right type; `iss` is `apiKey` (byte for byte); `exp` >
    /// `now`; `iat` ≤ `now` + ``ProtocolLimits/tokenClockSkew``; `connection_data` at most
    /// ``ProtocolLimits/maxConnectionDataLength`` scalars; `exp − iat` ≤ ``ProtocolLimits/maxTokenLifetime``.
    ///
    /// Every time comes from outside (the token, or the caller's clock): the arithmetic is checked, so extreme
    /// values (`iat` = `Int64.min`, issue 17) are refused, never trap. Every failure is
    /// ``ErrorCode/authorizationFailure``. Pure.
    package static func verified(payload: [UInt8], apiKey: String, now: Int64) throws(ProtocolError) -> TokenClaims {
        if let key = JSONDuplicateKeys.first(in: payload) {
            throw CompactToken.refused("token claims name \"\(key.prefix(64))\" twice")
        }
        guard let claims = try? JSONDecoder().decode(TokenClaims.self, from: Data(payload)) else {
            throw CompactToken.refused("token claims are malformed")
        }
        guard claims.apiKey.isSameBytes(as: apiKey) else { throw CompactToken.refused("token is for another API key") }
        guard claims.expiresAt > now else { throw CompactToken.refused("token expired") }
        guard claims.issuedAt <= now.saturatingAdding(ProtocolLimits.tokenClockSkew) else {
            throw CompactToken.refused("token issued in the future")
        }
        let lifetime = claims.expiresAt.subtractingReportingOverflow(claims.issuedAt)
        guard !lifetime.overflow, lifetime.partialValue <= ProtocolLimits.maxTokenLifetime else {
            throw CompactToken.refused("token lifetime over 30 days")
        }
        guard claims.connectionData.unicodeScalars.count <= ProtocolLimits.maxConnectionDataLength else {
            throw CompactToken.refused("token connection data too long")
        }
        return claims
    }
}
