import Hummingbird
import Testing
import TokKitProtocol
@testable import TokKitServer

/// `GET /metrics` is for the project only: the admin credentials of the REST API (Docs/Protocol.md 5.1, 5.6).
@Suite(.timeLimit(.minutes(2))) struct MetricsRouteTests {
    @Test func metricsNeedAdminCredentials() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let forgedAdmin = TokenAuthority(apiKey: TestServer.apiKey, apiSecret: "wrong-secret-0123456789")
                .adminToken(now: WallClock.seconds())
            let refusedCredentials: [(String, HTTPFields)] = [
                ("no credentials", [:]),
                ("a forged admin JWT", [Caller.adminJWTHeader: forgedAdmin]),
                ("a wrong partner secret", [Caller.partnerHeader: "\(TestServer.apiKey):wrong-secret-0123456789"]),
                ("a moderator's client token", [Caller.tokenHeader: try await server.token(session, role: .moderator)]),
            ]
            for (what, headers) in refusedCredentials {
                let (status, body) = try await server.http(.get, "/metrics", headers: headers)
                #expect(status == .unauthorized, "\(what)")
                #expect(TestServer.restError(body)?.code == .authorizationFailure, "\(what)")
                #expect(!String(decoding: body, as: UTF8.self).contains("tokkit_"), "\(what) got metrics")
            }

            let admin: HTTPFields = [Caller.adminJWTHeader: server.server.authority.adminToken(now: WallClock.seconds())]
            let partner: HTTPFields = [Caller.partnerHeader: "\(TestServer.apiKey):\(TestServer.apiSecret)"]
            for headers in [admin, partner] {
                let response = try await server.metricsResponse(headers: headers)
                #expect(response.status == .ok)
                #expect(response.contentType == "text/plain; version=0.0.4; charset=utf-8")
                #expect(response.text.contains("# TYPE tokkit_sessions gauge"))
            }
            // The refusals above are counted: 401 / 1004 over REST.
            let metrics = try await server.metrics()
            #expect(metrics.value("tokkit_refused_requests_total", ["code": "1004", "via": "rest"]) == 4)
        }
    }
}
