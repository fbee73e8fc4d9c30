#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AdminClaims {
    /// The claims of an admin JWT whose signature matched, checked as Docs/Protocol.md, 5.1 says: no key twice, every
    /// claim with the right type, `iss` = `apiKey` and `ist` = "project" (byte for byte), `exp` > `now` and at most
    /// ``ProtocolLimits/maxAdminTokenLifetime`` + ``ProtocolLimits/tokenClockSkew`` ahead (saturating arithmetic:
    /// any `now` and any `exp` are refused or accepted, never trap). Every failure is
    /// ``ErrorCode/authorizationFailure``. Pure.
    package static func verified(payload: [UInt8], apiKey: String, now: Int64) throws(ProtocolError) -> AdminClaims {
        if let key = JSONDuplicateKeys.first(in: payload) {
            throw CompactToken.refused("admin claims name \"\(key.prefix(64))\" twice")
        }
        guard let claims = try? JSONDecoder().decode(AdminClaims.self, from: Data(payload)) else {
            throw CompactToken.refused("admin claims are malformed")
        }
        guard claims.iss.isSameBytes(as: apiKey), claims.ist.isSameBytes(as: "project") else {
            throw CompactToken.refused("admin token is not for this project")
        }
        guard claims.exp > now else { throw CompactToken.refused("admin token expired") }
        let latest = now.saturatingAdding(ProtocolLimits.maxAdminTokenLifetime + ProtocolLimits.tokenClockSkew)
        guard claims.exp <= latest else { throw CompactToken.refused("admin token lives too long") }
        return claims
    }
}
