import Crypto
import Testing
import TokKitProtocol
@testable import TokKitServer

@Suite struct TokenAuthorityTests {
    let authority = TokenAuthority(apiKey: "key", apiSecret: "secret-0123456789abcdef")
    let now: Int64 = 1_732_190_000

    private func claims(
        session: String = "2_s", role: Role = .publisher, iat: Int64? = nil, exp: Int64? = nil, key: String = "key"
    ) -> TokenClaims {
        TokenClaims(
            apiKey: key, sessionID: session, role: role, issuedAt: iat ?? now, expiresAt: exp ?? now + 3_600,
            nonce: "n", connectionData: "d")
    }

    private func expectRefused(_ token: String, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try authority.verify(token, now: now)
            Issue.record("accepted: \(comment?.description ?? token)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == .authorizationFailure, sourceLocation: sourceLocation)
        }
    }

    @Test func issuedTokensVerifyWithTheirClaims() throws {
        let issued = try authority.issue(sessionID: "2_s", role: .moderator, connectionData: "name=ann", now: now)
        #expect(issued.expireTime == now + 86_400)
        let verified = try authority.verify(issued.token, now: now)
        #expect(verified.sessionID == "2_s" && verified.role == .moderator && verified.connectionData == "name=ann")
        #expect(verified.apiKey == "key" && verified.issuedAt == now && !verified.nonce.isEmpty)
        let other = try authority.issue(sessionID: "2_s", role: .moderator, connectionData: "name=ann", now: now)
        #expect(other.token != issued.token, "nonce makes tokens unique")
    }

    @Test func issueEnforcesLifetimeAndDataLimits() {
        #expect(throws: ProtocolError.self) { try authority.issue(sessionID: "s", expireTime: now, now: now) }
        #expect(throws: ProtocolError.self) {
            try authority.issue(sessionID: "s", expireTime: now + 30 * 86_400 + 1, now: now)
        }
        #expect(throws: ProtocolError.self) {
            try authority.issue(sessionID: "s", connectionData: String(repeating: "a", count: 1_001), now: now)
        }
        #expect((try? authority.issue(sessionID: "s", expireTime: now + 30 * 86_400, now: now)) != nil)
    }

    @Test func everySingleBitFlipIsRefused() throws {
        let token = try authority.issue(sessionID: "2_s", now: now).token
        let bytes = Array(token.utf8)
        var refused = 0
        for index in bytes.indices {
            for bit in 0..<8 {
                var mutated = bytes
                mutated[index] ^= UInt8(1 << bit)
                let text = String(decoding: mutated, as: UTF8.self)
                expectRefused(text, "bit \(bit) of byte \(index)")
                refused += 1
            }
        }
        #expect(refused == bytes.count * 8)
    }

    @Test func wrongSecretWrongKeyExpiredAlgNoneTruncatedAndMalformedAreRefused() throws {
        let good = authority.sign(claims())
        _ = try authority.verify(good, now: now)

        let otherSecret = TokenAuthority(apiKey: "key", apiSecret: "another-secret-0123456")
        expectRefused(otherSecret.sign(claims()), "wrong secret")
        expectRefused(authority.sign(claims(key: "other")), "wrong API key")
        expectRefused(authority.sign(claims(exp: now)), "expired at now")
        expectRefused(authority.sign(claims(iat: now - 7_200, exp: now - 1)), "expired")
        expectRefused(authority.sign(claims(iat: now + 3_600, exp: now + 7_200)), "issued in the future")
        expectRefused(authority.sign(claims(iat: now, exp: now + 31 * 86_400)), "lifetime over 30 days")

        let parts = good.split(separator: ".").map(String.init)
        let noneHeader = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        expectRefused("\(noneHeader).\(parts[1]).", "alg none, empty signature")
        expectRefused("\(noneHeader).\(parts[1]).\(parts[2])", "alg none, kept signature")
        let hs512 = Base64URL.encode(Array(#"{"alg":"HS512","typ":"JWT"}"#.utf8))
        expectRefused("\(hs512).\(parts[1]).\(parts[2])", "other alg")

        for length in [0, 1, good.utf8.count / 2, good.utf8.count - 1] {
            expectRefused(String(good.prefix(length)), "truncated to \(length)")
        }
        for malformed in ["", ".", "..", "a.b", "a.b.c.d", "\(parts[0]).\(parts[1])", "\(parts[0])..\(parts[2])",
                          good + ".", " " + good, String(repeating: "A", count: 5_000)] {
            expectRefused(malformed, "malformed")
        }
        let garbageClaims = authority.sign(payload: Array(#"{"iss":"key"}"#.utf8))
        expectRefused(garbageClaims, "missing claims")
        var resigned = claims()
        resigned.role = .moderator
        let payloadSwap = "\(parts[0]).\(authority.sign(resigned).split(separator: ".")[1]).\(parts[2])"
        expectRefused(payloadSwap, "payload swapped under old signature")
    }

    /// Issue 17, item 1: `iat` = Int64.min made `exp - iat` trap and took the whole server down.
    @Test func extremeTimesAreRefusedWithoutTrapping() throws {
        let extremes: [(iat: Int64, exp: Int64)] = [
            (.min, now + 3_600), (.min, .max), (.min, .min), (.max, .max), (.max, .min), (now, .max),
            (now - 1, .min), (-1, .max),
        ]
        for (iat, exp) in extremes {
            expectRefused(authority.sign(claims(iat: iat, exp: exp)), "iat \(iat), exp \(exp)")
        }
        for extremeNow in [Int64.max, .min] {
            #expect(throws: ProtocolError.self) { try authority.verify(authority.sign(claims(iat: .min, exp: .max)), now: extremeNow) }
            #expect(throws: ProtocolError.self) { try authority.verifyAdmin(authority.adminToken(now: extremeNow), now: now) }
            #expect(throws: ProtocolError.self) { try authority.issue(sessionID: "s", expireTime: .max, now: extremeNow) }
            #expect(throws: ProtocolError.self) { try authority.issue(sessionID: "s", expireTime: .min, now: extremeNow) }
        }
        #expect(throws: ProtocolError.self) { try authority.issue(sessionID: "s", expireTime: .max, now: -1) }
        #expect(throws: ProtocolError.self) { try authority.issue(sessionID: "s", now: .max) }
        #expect(throws: ProtocolError.self) { try authority.verifyAdmin(authority.adminToken(now: now), now: .max) }
    }

    /// Issue 17, item 7: `String ==` is canonical equivalence, under which U+212A KELVIN SIGN equals "K".
    @Test func apiKeyAndIssAreComparedByteForByte() throws {
        let kelvin = "\u{212A}ey"
        #expect(kelvin == "Key", "the premise: Swift strings compare canonically")
        let authority = TokenAuthority(apiKey: "Key", apiSecret: "secret-0123456789abcdef")
        #expect(authority.isAPIKey("Key") && !authority.isAPIKey(kelvin))
        _ = try authority.verify(authority.sign(claims(key: "Key")), now: now)
        #expect(throws: ProtocolError(.authorizationFailure, "token is for another API key")) {
            try authority.verify(authority.sign(claims(key: kelvin)), now: now)
        }
        func admin(iss: String, ist: String = "project") -> String {
            authority.sign(payload: Array(#"{"iss":"\#(iss)","ist":"\#(ist)","iat":\#(now),"exp":\#(now + 60),"jti":"j"}"#.utf8))
        }
        try authority.verifyAdmin(admin(iss: "Key"), now: now)
        #expect(throws: ProtocolError.self) { try authority.verifyAdmin(admin(iss: kelvin), now: now) }
        #expect(throws: ProtocolError.self) { try authority.verifyAdmin(admin(iss: "Key", ist: "proj\u{0065}\u{0301}ct"), now: now) }
        #expect(throws: ProtocolError.self) { try authority.verifyPartner("\(kelvin):secret-0123456789abcdef") }
    }

    /// Issue 17, item 7: a duplicated claim was accepted with its last value.
    @Test func claimsWithADuplicatedKeyAreRefused() throws {
        func payload(_ extra: String) -> [UInt8] {
            Array(#"{"iss":"key","session_id":"2_s","role":"subscriber","iat":\#(now),"exp":\#(now + 60),"nonce":"n","connection_data":""\#(extra)}"#.utf8)
        }
        #expect(try authority.verify(authority.sign(payload: payload("")), now: now).role == .subscriber)
        for extra in [#","role":"moderator""#, #","r\u006fle":"moderator""#, #","session_id":"2_other""#,
                      #","exp":\#(now + 30)"#, #","extra":{"a":1,"a":2}"#] {
            #expect(throws: ProtocolError.self, "\(extra)") { try authority.verify(authority.sign(payload: payload(extra)), now: now) }
            do {
                _ = try authority.verify(authority.sign(payload: payload(extra)), now: now)
            } catch {
                #expect(error.code == .authorizationFailure && error.message.contains("twice"), "\(error)")
            }
        }
        let admin = #"{"iss":"key","ist":"project","iat":\#(now),"exp":\#(now + 60),"exp":\#(now + 86_400),"jti":"j"}"#
        #expect(throws: ProtocolError.self) { try authority.verifyAdmin(authority.sign(payload: Array(admin.utf8)), now: now) }
        // A correctly signed header naming `alg` twice is refused as well, whatever the last value.
        let signingInput = Base64URL.encode(Array(#"{"alg":"none","alg":"HS256","typ":"JWT"}"#.utf8)) + "."
            + Base64URL.encode(payload(""))
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array(signingInput.utf8), using: SymmetricKey(data: Array("secret-0123456789abcdef".utf8)))
        expectRefused(signingInput + "." + Base64URL.encode(mac), "alg twice")
        let single = Base64URL.encode(Array(#"{"typ":"JWT","alg":"HS256"}"#.utf8)) + "." + Base64URL.encode(payload(""))
        let singleMac = HMAC<SHA256>.authenticationCode(
            for: Array(single.utf8), using: SymmetricKey(data: Array("secret-0123456789abcdef".utf8)))
        #expect(throws: Never.self, "the same, hand-signed, with alg once") {
            try authority.verify(single + "." + Base64URL.encode(singleMac), now: now)
        }
    }

    @Test func adminTokensAndPartnerCredentials() throws {
        try authority.verifyAdmin(authority.adminToken(now: now), now: now)
        #expect(throws: ProtocolError.self) { try authority.verifyAdmin(authority.adminToken(now: now - 400), now: now) }
        let other = TokenAuthority(apiKey: "key", apiSecret: "another-secret-0123456")
        #expect(throws: ProtocolError.self) { try authority.verifyAdmin(other.adminToken(now: now), now: now) }
        #expect(throws: ProtocolError.self) { try authority.verifyAdmin(authority.sign(claims()), now: now) }
        try authority.verifyPartner("key:secret-0123456789abcdef")
        #expect(throws: ProtocolError.self) { try authority.verifyPartner("key:secret-0123456789abcdeg") }
        #expect(throws: ProtocolError.self) { try authority.verifyPartner("key:") }
    }
}
