/// Claims of an admin JWT (`X-OPENTOK-AUTH`): the project (`iss` = API key, `ist` = "project"), issued-at, expiry
/// (at most 5 minutes after issue) and a unique id. Seconds since the Unix epoch.
struct AdminClaims: Codable, Hashable, Sendable {
    var iss: String
    var ist: String
    var iat: Int64
    var exp: Int64
    var jti: String
}
