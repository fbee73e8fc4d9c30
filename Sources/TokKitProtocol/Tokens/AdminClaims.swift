/// Claims of an admin JWT (`X-OPENTOK-AUTH`): the project (`iss` = API key, `ist` = "project"), issued-at, expiry
/// (at most 5 minutes after issue) and a unique id. Seconds since the Unix epoch.
package struct AdminClaims: Codable, Hashable, Sendable {
    package var iss: String
    package var ist: String
    package var iat: Int64
    package var exp: Int64
    package var jti: String

    package init(iss: String, ist: String, iat: Int64, exp: Int64, jti: String) {
        self.iss = iss
        self.ist = ist
        self.iat = iat
        self.exp = exp
        self.jti = jti
    }
}
