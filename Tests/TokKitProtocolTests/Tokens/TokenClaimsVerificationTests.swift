import Testing
import TokKitProtocol

/// `TokenClaims.verified` and `AdminClaims.verified`: the claim checks of Docs/Protocol.md, 4 and 5.1, with times
/// that come from outside (issue 17: `iat` = Int64.min trapped in `exp - iat`).
@Suite struct TokenClaimsVerificationTests {
    let now: Int64 = 1_732_190_000

    private func claims(iat: Int64, exp: Int64, iss: String = "Key", data: String = "") -> [UInt8] {
        Array(#"{"iss":"\#(iss)","session_id":"s","role":"publisher","iat":\#(iat),"exp":\#(exp),"nonce":"n","connection_data":"\#(data)"}"#.utf8)
    }

    @Test func validClaimsAreReturned() throws {
        let verified = try TokenClaims.verified(payload: claims(iat: now, exp: now + 60), apiKey: "Key", now: now)
        #expect(verified.issuedAt == now && verified.expiresAt == now + 60 && verified.role == .publisher)
    }

    @Test func extremeTimesAreRefusedWithoutTrapping() {
        let times: [Int64] = [.min, .min + 1, -1, 0, now, .max - 1, .max]
        for iat in times {
            for exp in times {
                for clock in times {
                    do {
                        let verified = try TokenClaims.verified(payload: claims(iat: iat, exp: exp), apiKey: "Key", now: clock)
                        let lifetime = exp.subtractingReportingOverflow(iat)
                        #expect(verified.expiresAt > clock && !lifetime.overflow && lifetime.partialValue <= ProtocolLimits.maxTokenLifetime)
                    } catch {
                        #expect(error.code == .authorizationFailure)
                    }
                    let admin = Array(#"{"iss":"Key","ist":"project","iat":\#(iat),"exp":\#(exp),"jti":"j"}"#.utf8)
                    do {
                        let verified = try AdminClaims.verified(payload: admin, apiKey: "Key", now: clock)
                        #expect(verified.exp > clock)
                    } catch {
                        #expect(error.code == .authorizationFailure)
                    }
                }
            }
        }
    }

    @Test func keyLimitsAndDuplicatesAreRefused() {
        for (payload, expected) in [
            (claims(iat: now, exp: now + 60, iss: "\u{212A}ey"), "another API key"),
            (claims(iat: now, exp: now + 60, data: String(repeating: "a", count: 1_001)), "connection data too long"),
            (claims(iat: now + 301, exp: now + 600), "issued in the future"),
            (claims(iat: now - 10, exp: now), "expired"),
            (claims(iat: now, exp: now + 30 * 86_400 + 1), "lifetime over 30 days"),
            (Array(#"{"iss":"Key","iss":"Key"}"#.utf8), "twice"),
            (Array("not json".utf8), "malformed"),
        ] {
            do {
                _ = try TokenClaims.verified(payload: payload, apiKey: "Key", now: now)
                Issue.record("accepted, expected \(expected)")
            } catch {
                #expect(error.code == .authorizationFailure && error.message.contains(expected), "\(error)")
            }
        }
    }
}
