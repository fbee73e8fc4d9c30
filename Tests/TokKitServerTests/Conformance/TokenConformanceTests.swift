import Foundation
import Hummingbird
import Testing
import TokKitProtocol
@testable import TokKitServer

/// Docs/Protocol.md, 4 (tokens), row by row against a live server: the server's own tokens carry exactly the
/// claims of the table, each of the listed JSON type; a correctly signed token without one of them, or with it of
/// another type, is refused with 1004 on `connect` and on REST (`X-TB-TOKEN-AUTH`); the header is the documented
/// one; `role` takes exactly the listed values; `exp` is refused at that instant; `connection_data` has its limit.
@Suite(.timeLimit(.minutes(2))) struct TokenConformanceTests {
    @Test func everyClaimIsRequiredAndTyped() async throws {
        let table = try ProtocolDocument.load().table(in: "4")
        let (claimColumn, typeColumn) = (try table.column("claim"), try table.column("type"))
        let claims = table.rows.compactMap { cells in
            ProtocolCell.backticked(cells[claimColumn]).first.map { ($0, cells[typeColumn]) }
        }
        #expect(claims.count == 7, "\(claims)")
        try await TestServer.with { server in
            let session = try await server.session()
            let issued = try await server.token(session, role: .moderator, data: "d")
            let parts = issued.split(separator: ".")
            #expect(parts.count == 3)
            let header = try #require(Base64URL.decode(parts[0]))
            #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"HS256","typ":"JWT"}"#)
            #expect(try #require(Base64URL.decode(parts[2])).count == 32)
            let payloadJSON = try #require(Base64URL.decode(parts[1]))
            let payload = try #require(try JSONSerialization.jsonObject(with: Data(payloadJSON)) as? [String: Any])
            #expect(Set(payload.keys) == Set(claims.map(\.0)), "the server's token has \(payload.keys.sorted())")
            #expect(try await accepted(payload, session, server), "premise: the token's own claims, re-signed, are accepted")

            for (claim, type) in claims {
                switch type {
                case "string": #expect(payload[claim] is String, "\(claim) is \(String(describing: payload[claim]))")
                case "int": #expect(payload[claim] is Int && !(payload[claim] is Bool), "\(claim) is \(String(describing: payload[claim]))")
                default: Issue.record("claim \(claim) has type \(type), which this test does not know")
                }
                var without = payload
                without[claim] = nil
                #expect(try await !accepted(without, session, server), "a token without \(claim) was accepted")
                var retyped = payload
                retyped[claim] = type == "string" ? 5 as Any : "5" as Any
                #expect(try await !accepted(retyped, session, server), "a token with \(claim) of the wrong type was accepted")
            }
        }
    }

    @Test func roleExpiryAndConnectionDataAreAsTheRowsSay() async throws {
        let table = try ProtocolDocument.load().table(in: "4")
        let claimColumn = try table.column("claim")
        let meaning = try table.column("meaning")
        func row(_ claim: String) throws -> String {
            try #require(table.rows.first { ProtocolCell.backticked($0[claimColumn]).first == claim })[meaning]
        }
        #expect(Set(ProtocolCell.backticked(try row("role"))) == Set(Role.allCases.map(\.rawValue)))
        #expect(try row("exp").contains("refused at or after this instant"))
        let dataLimit = try #require(ProtocolCell.numbers(try row("connection_data")).first)
        try await TestServer.with { server in
            let session = try await server.session()
            let now = WallClock.seconds()
            var claims: [String: Any] = [
                "iss": TestServer.apiKey, "session_id": session, "role": "publisher", "iat": now, "exp": now + 600,
                "nonce": "n", "connection_data": "",
            ]
            for role in Role.allCases {
                claims["role"] = role.rawValue
                #expect(try await accepted(claims, session, server), "role \(role.rawValue)")
            }
            claims["role"] = "owner"
            #expect(try await !accepted(claims, session, server), "a role not listed")
            claims["role"] = "publisher"
            claims["exp"] = now
            #expect(try await !accepted(claims, session, server), "exp = now")
            claims["exp"] = now + 600
            claims["connection_data"] = String(repeating: "é", count: dataLimit)
            #expect(try await accepted(claims, session, server), "\(dataLimit) characters of connection data")
            claims["connection_data"] = String(repeating: "é", count: dataLimit + 1)
            #expect(try await !accepted(claims, session, server), "\(dataLimit + 1) characters of connection data")
        }
    }

    /// Signs `claims` with the server's secret and tries it on `connect` and on a REST client call: true if both
    /// accept it, false if both refuse it with 1004 (a disagreement between the two paths is recorded).
    private func accepted(_ claims: [String: Any], _ session: String, _ server: TestServer) async throws -> Bool {
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        let token = server.server.authority.sign(payload: Array(payload))
        let socket = try await ConformanceMember.open(server)
        let code = try await ErrorCodeConformanceTests.request(
            socket, ["type": "connect", "version": 1, "apiKey": TestServer.apiKey, "sessionId": session, "token": token])
        var headers = HTTPFields()
        headers[Caller.tokenHeader] = token
        let (status, body) = try await server.http(.get, "/v2/project/\(TestServer.apiKey)/session/\(session)/stream", headers: headers)
        let restAccepted = status == .ok
        let wsAccepted = code == nil
        #expect(restAccepted == wsAccepted, "connect says \(String(describing: code)), REST \(status)")
        if !wsAccepted { #expect(code == ErrorCode.authorizationFailure.rawValue) }
        if !restAccepted { #expect(status == .unauthorized && TestServer.restError(body)?.code == .authorizationFailure) }
        return wsAccepted && restAccepted
    }
}
