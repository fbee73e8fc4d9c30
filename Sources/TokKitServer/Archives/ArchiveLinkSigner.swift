import Crypto
import TokKitProtocol

/// Signed download links for the archive view page: a browser's `<video>` element cannot send credentials, so the
/// page (itself served only to an authorized caller) names the download URL with `expires` and `signature` query
/// parameters, an HMAC-SHA256 over the archive id and the expiry under a key made at random when the server
/// starts (links die with the process). Immutable, `Sendable`.
struct ArchiveLinkSigner: Sendable {
    /// How long a link lives, in seconds.
    static let lifetime: Int64 = 3_600
    private let key: [UInt8]

    /// A signer with a fresh random key.
    init() {
        var generator = SystemRandomNumberGenerator()
        key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// The query of a link to archive `id`'s download valid until `now` + ``lifetime``.
    func query(for id: String, now: Int64) -> String {
        let expires = now + Self.lifetime
        return "expires=\(expires)&signature=\(signature(id, expires))"
    }

    /// True when `signature` signs `id` until `expires` and `expires` has not passed (constant-time check).
    func verify(id: String, expires: String?, signature: String?, now: Int64) -> Bool {
        guard let expires, let signature, let until = Int64(expires), until >= now,
              let given = Base64URL.decode(signature[...])
        else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: message(id, until), using: SymmetricKey(data: key))
    }

    private func signature(_ id: String, _ expires: Int64) -> String {
        Base64URL.encode(Array(HMAC<SHA256>.authenticationCode(for: message(id, expires), using: SymmetricKey(data: key))))
    }

    private func message(_ id: String, _ expires: Int64) -> [UInt8] { Array("\(id)\n\(expires)".utf8) }
}
