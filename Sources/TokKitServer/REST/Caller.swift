import Hummingbird
import TokKitProtocol

/// Who is making a REST call: the project itself (admin credentials) or a client token of the session in the path.
enum Caller: Sendable {
    case admin
    case client(TokenClaims)

    static let adminJWTHeader = HTTPFields.Element.Name("X-OPENTOK-AUTH")!
    static let partnerHeader = HTTPFields.Element.Name("X-TB-PARTNER-AUTH")!
    static let tokenHeader = HTTPFields.Element.Name("X-TB-TOKEN-AUTH")!

    /// Authenticates a request (Docs/Protocol.md, 5.1). `sessionID`, when given, is the session in the path: a client
    /// token must be for it. Admin credentials are required when `allowClientToken` is false.
    static func authenticate(
        _ request: Request, authority: TokenAuthority, sessionID: String?, allowClientToken: Bool
    ) throws(RESTFailure) -> Caller {
        let now = WallClock.seconds()
        do throws(ProtocolError) {
            if let jwt = request.headers[adminJWTHeader] {
                try authority.verifyAdmin(jwt, now: now)
                return .admin
            }
            if let credential = request.headers[partnerHeader] {
                try authority.verifyPartner(credential)
                return .admin
            }
            if allowClientToken, let token = request.headers[tokenHeader] {
                let claims = try authority.verify(token, now: now)
                guard let sessionID, claims.sessionID.isSameBytes(as: sessionID) else {
                    throw ProtocolError(.authorizationFailure, "token is for another session")
                }
                return .client(claims)
            }
        } catch {
            throw RESTFailure(.unauthorized, error)
        }
        throw RESTFailure(.unauthorized, ProtocolError(.authorizationFailure, "missing credentials"))
    }

    /// Throws `code` (403) unless the caller is admin or its role passes `allowed`.
    func require(_ allowed: (Role) -> Bool, else code: ErrorCode) throws(RESTFailure) {
        if case let .client(claims) = self, !allowed(claims.role) {
            throw RESTFailure(.forbidden, ProtocolError(code, "role \(claims.role.rawValue) may not do this"))
        }
    }
}
