import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokKitProtocol

/// Time-limited TURN credentials of the TURN REST API scheme (draft-uberti-behave-turn-rest), the one coturn
/// verifies with `use-auth-secret` / `static-auth-secret`: username `expiry:user` (expiry in Unix seconds),
/// credential base64(HMAC-SHA1(secret, username)). The TURN server needs no per-user state: it recomputes the
/// credential from the shared secret and refuses a username whose expiry has passed.
///
/// Value type, usable from any thread.
struct TURNCredentials: Sendable {
    let secret: String
    let lifetimeSeconds: Int64

    /// The username and credential for `user` (the connection id), valid until `now + lifetime`.
    func make(user: String, now: Int64) -> (username: String, credential: String) {
        let expiry = now.addingReportingOverflow(lifetimeSeconds)
        let username = "\(expiry.overflow ? Int64.max : expiry.partialValue):\(user)"
        let mac = HMAC<Insecure.SHA1>.authenticationCode(
            for: Data(username.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return (username, Data(mac).base64EncodedString())
    }

    /// `servers` as one connection gets them: TURN entries without static credentials get fresh ones for
    /// `user`; STUN entries and TURN entries with static credentials go as they are. Without a secret (nil
    /// `credentials`) the list is unchanged.
    static func issue(_ servers: [ICEServerInfo], with credentials: TURNCredentials?, user: String,
                      now: Int64) -> [ICEServerInfo] {
        servers.map { server in
            guard server.isTURN, server.username == nil, let credentials else { return server }
            let (username, credential) = credentials.make(user: user, now: now)
            return ICEServerInfo(urls: server.urls, username: username, credential: credential)
        }
    }
}
