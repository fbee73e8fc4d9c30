import Hummingbird
import HummingbirdTesting
import NIOWebSocket
import Testing
import TokKitProtocol
@testable import TokKitServer

/// The REST API over a real 127.0.0.1 HTTP connection: tutorial service, admin calls, REST role matrix.
@Suite(.timeLimit(.minutes(2))) struct RESTRoutesTests {
    private func admin(_ server: TestServer) -> HTTPFields {
        [Caller.adminJWTHeader: server.server.authority.adminToken(now: WallClock.seconds())]
    }

    private func tokenAuth(_ token: String) -> HTTPFields { [Caller.tokenHeader: token] }

    @Test func quickStartReturnsWorkingCredentials() async throws {
        try await TestServer.with { server in
            let (status, body) = try await server.http(.get, "/session")
            #expect(status == .ok)
            let credentials = try WireCodec.decode(SessionCredentials.self, from: body)
            #expect(credentials.apiKey == TestServer.apiKey)
            let again = try WireCodec.decode(SessionCredentials.self, from: try await server.http(.get, "/session").body)
            #expect(again.sessionID == credentials.sessionID && again.token != credentials.token)
            let room = try WireCodec.decode(SessionCredentials.self, from: try await server.http(.get, "/room/blue-room").body)
            #expect(room.sessionID != credentials.sessionID)
            #expect(try await server.http(.get, "/room/bad%20name").status == .badRequest)

            let client = try await server.open(credentials.sessionID, token: credentials.token)
            guard case let .connected(connected) = await client.nextMessage() else { throw TestFailure("connect") }
            #expect(connected.role == .publisher)
        }
    }

    /// Issue 17: with quick start off, `GET /session` answered 404 with an empty body, not the `{"code","message"}`
    /// body every REST error has (Docs/Protocol.md, 5).
    @Test func quickStartCanBeTurnedOff() async throws {
        try await TestServer.with({ $0.quickStart = false }) { server in
            let session = try await server.session()
            for path in ["/session", "/room/blue-room", "/credentials/\(session)"] {
                let (status, body) = try await server.http(.get, path)
                #expect(status == .notFound, "\(path)")
                let error = TestServer.restError(body)
                #expect(error?.code == .invalidParameter && error?.message.isEmpty == false, "\(path): \(body.count) bytes")
            }
            // The rest of the server still answers: the page, and a real 404 of a route (unknown session).
            #expect(try await server.http(.get, "/").status == .ok)
            let admin: HTTPFields = [Caller.adminJWTHeader: server.server.authority.adminToken(now: WallClock.seconds())]
            let unknown = try await server.http(.get, "/v2/project/\(TestServer.apiKey)/session/2_nope/stream", headers: admin)
            #expect(unknown.status == .notFound && TestServer.restError(unknown.body)?.code == .invalidSessionID)
        }
    }

    @Test func unknownPathsAndMethodsGetAJSONNotFound() async throws {
        try await TestServer.with { server in
            for (method, path) in [(HTTPRequest.Method.get, "/nope"), (.get, "/v2/project/k/session/s/what"),
                                   (.delete, "/session/create"), (.get, "/signaling")] {
                let (status, body) = try await server.http(method, path)
                #expect(status == .notFound && TestServer.restError(body)?.code == .invalidParameter, "\(method) \(path)")
            }
        }
    }

    @Test func createSessionAndIssueTokensNeedProjectCredentials() async throws {
        try await TestServer.with { server in
            #expect(try await server.http(.post, "/session/create").status == .unauthorized)
            let forged: HTTPFields = [Caller.adminJWTHeader: TokenAuthority(apiKey: TestServer.apiKey, apiSecret: "wrong-secret-0123456789")
                .adminToken(now: WallClock.seconds())]
            let refused = try await server.http(.post, "/session/create", headers: forged)
            #expect(refused.status == .unauthorized && TestServer.restError(refused.body)?.code == .authorizationFailure)

            let created = try await server.http(
                .post, "/session/create", headers: admin(server), body: #"{"mediaMode":"routed","archiveMode":"always"}"#)
            #expect(created.status == .ok)
            let session = try WireCodec.decode(SessionDescription.self, from: created.body)
            #expect(session.mediaMode == .routed && session.archiveMode == .always && session.apiKey == TestServer.apiKey)
            let partner: HTTPFields = [Caller.partnerHeader: "\(TestServer.apiKey):\(TestServer.apiSecret)"]
            #expect(try await server.http(.post, "/session/create", headers: partner).status == .ok)
            // Issue 16: `always` records relayed sessions too (it was refused before the archive service existed).
            let relayedAlways = try await server.http(
                .post, "/session/create", headers: admin(server), body: #"{"mediaMode":"relayed","archiveMode":"always"}"#)
            #expect(relayedAlways.status == .ok)
            #expect(try WireCodec.decode(SessionDescription.self, from: relayedAlways.body).archiveMode == .always)
            #expect(try await server.http(.post, "/session/create", headers: admin(server), body: "{").status == .badRequest)

            let path = "/v2/project/\(TestServer.apiKey)/session/\(session.sessionID)/token"
            let issued = try await server.http(
                .post, path, headers: admin(server), body: #"{"role":"moderator","data":"name=mod"}"#)
            #expect(issued.status == .ok)
            let token = try WireCodec.decode(IssuedToken.self, from: issued.body)
            #expect(token.role == .moderator && token.expireTime > WallClock.seconds() + 86_000)
            let claims = try server.server.authority.verify(token.token, now: WallClock.seconds())
            #expect(claims.connectionData == "name=mod" && claims.sessionID == session.sessionID)

            let tooLong = try await server.http(
                .post, path, headers: admin(server), body: #"{"expireTime":\#(WallClock.seconds() + 31 * 86_400)}"#)
            #expect(tooLong.status == .badRequest)
            let past = try await server.http(.post, path, headers: admin(server), body: #"{"expireTime":1}"#)
            #expect(past.status == .badRequest)
            let bigData = try await server.http(
                .post, path, headers: admin(server), body: #"{"data":"\#(String(repeating: "a", count: 1_001))"}"#)
            #expect(bigData.status == .badRequest)
            // A client token cannot mint tokens.
            #expect(try await server.http(.post, path, headers: tokenAuth(token.token)).status == .unauthorized)
            let unknown = try await server.http(
                .post, "/v2/project/\(TestServer.apiKey)/session/2_nope/token", headers: admin(server))
            #expect(unknown.status == .notFound && TestServer.restError(unknown.body)?.code == .invalidSessionID)
            let wrongKey = try await server.http(
                .post, "/v2/project/other/session/\(session.sessionID)/token", headers: admin(server))
            #expect(wrongKey.status == .unauthorized)
        }
    }

    @Test func restRoleMatrix() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let (member, memberConnected) = try await server.join(session)
            member.send(.publish(.init(name: "m")), rid: 1)
            guard case .ack = await member.nextMessage() else { throw TestFailure("publish") }
            guard case let .streamCreated(created) = await member.nextMessage() else { throw TestFailure("created") }
            let base = "/v2/project/\(TestServer.apiKey)/session/\(session)"

            for role in Role.allCases {
                let headers = tokenAuth(try await server.token(session, role: role))
                let list = try await server.http(.get, "\(base)/stream", headers: headers)
                #expect(list.status == .ok, "\(role) list")
                #expect((try? WireCodec.decode(StreamList.self, from: list.body))?.items.map(\.id) == [created.stream.id])

                let signal = try await server.http(.post, "\(base)/signal", headers: headers, body: #"{"type":"t","data":"d"}"#)
                #expect(signal.status == (role.maySignal ? .noContent : .forbidden), "\(role) signal")
                if !role.maySignal { #expect(TestServer.restError(signal.body)?.code == .unableToSignal) }

                let mute = try await server.http(.post, "\(base)/stream/\(created.stream.id)/mute", headers: headers)
                #expect(mute.status == (role.mayModerate ? .noContent : .forbidden), "\(role) mute")
                if !role.mayModerate { #expect(TestServer.restError(mute.body)?.code == .unableToForceMute) }

                let kickNobody = try await server.http(.delete, "\(base)/connection/nobody", headers: headers)
                #expect(kickNobody.status == (role.mayModerate ? .notFound : .forbidden), "\(role) disconnect")
                if !role.mayModerate { #expect(TestServer.restError(kickNobody.body)?.code == .unableToForceDisconnect) }

                let unpublishNothing = try await server.http(.delete, "\(base)/stream/none", headers: headers)
                #expect(unpublishNothing.status == (role.mayModerate ? .notFound : .forbidden), "\(role) unpublish")
            }
            // A token of another session is refused; so are missing credentials.
            let other = try await server.session()
            let foreign = try await server.http(
                .post, "\(base)/signal", headers: tokenAuth(try await server.token(other, role: .moderator)), body: "{}")
            #expect(foreign.status == .unauthorized)
            #expect(try await server.http(.post, "\(base)/signal", body: "{}").status == .unauthorized)

            // The member got the signals (no sender) of the two roles allowed to signal, and was muted once.
            var signals = 0
            var muted = 0
            for _ in 0..<10 where signals < 2 || muted < 1 {
                switch await member.nextMessage() {
                case let .signal(signal):
                    #expect(signal.from == nil && signal.type == "t")
                    signals += 1
                case .muteForced: muted += 1
                default: continue
                }
            }
            #expect(signals == 2 && muted >= 1)

            // Moderator token kicks the member over REST.
            let moderator = tokenAuth(try await server.token(session, role: .moderator))
            let kick = try await server.http(.delete, "\(base)/connection/\(memberConnected.connection.id)", headers: moderator)
            #expect(kick.status == .noContent)
            #expect(await member.waitForClose().code == .normalClosure)
        }
    }

    /// Issue 17, item 1: the trapping token (`iat` = Int64.min) through `X-TB-TOKEN-AUTH` is a 401, not a crash.
    @Test func clientTokensWithExtremeTimesAreRefused() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let base = "/v2/project/\(TestServer.apiKey)/session/\(session)"
            let now = WallClock.seconds()
            for (iat, exp) in [(Int64.min, now + 600), (.min, .max), (-1, .max)] {
                let token = server.server.authority.sign(
                    TokenClaims(apiKey: TestServer.apiKey, sessionID: session, role: .moderator, issuedAt: iat,
                                expiresAt: exp, nonce: "n", connectionData: ""))
                let reply = try await server.http(.get, "\(base)/stream", headers: tokenAuth(token))
                #expect(reply.status == .unauthorized && TestServer.restError(reply.body)?.code == .authorizationFailure,
                        "iat \(iat) exp \(exp)")
            }
            let tooFar = try await server.http(
                .post, "\(base)/token", headers: admin(server), body: #"{"expireTime":9223372036854775807}"#)
            #expect(tooFar.status == .badRequest && TestServer.restError(tooFar.body)?.code == .invalidParameter)
            let notAnInt64 = try await server.http(
                .post, "\(base)/token", headers: admin(server), body: #"{"expireTime":1e300}"#)
            #expect(notAnInt64.status == .badRequest && TestServer.restError(notAnInt64.body)?.code == .invalidParameter)
            #expect(try await server.http(.get, "\(base)/stream", headers: admin(server)).status == .ok)
        }
    }

    @Test func restSignalLimitsAndTargets() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let (member, connected) = try await server.join(session)
            let base = "/v2/project/\(TestServer.apiKey)/session/\(session)"
            let headers = admin(server)
            let badType = try await server.http(.post, "\(base)/signal", headers: headers, body: #"{"type":"a b"}"#)
            #expect(badType.status == .badRequest && TestServer.restError(badType.body)?.code == .invalidSignalType)
            let big = try await server.http(
                .post, "\(base)/signal", headers: headers, body: #"{"data":"\#(String(repeating: "x", count: 8_193))"}"#)
            #expect(big.status == .contentTooLarge && TestServer.restError(big.body)?.code == .signalDataTooLong)
            let huge = try await server.http(
                .post, "\(base)/signal", headers: headers, body: #"{"data":"\#(String(repeating: "x", count: 200_000))"}"#)
            #expect(huge.status == .contentTooLarge && TestServer.restError(huge.body)?.code == .signalDataTooLong)
            let nobody = try await server.http(.post, "\(base)/connection/nobody/signal", headers: headers, body: "{}")
            #expect(nobody.status == .notFound)
            let direct = try await server.http(
                .post, "\(base)/connection/\(connected.connection.id)/signal", headers: headers,
                body: #"{"type":"direct","data":"to you"}"#)
            #expect(direct.status == .noContent)
            guard case let .signal(signal) = await member.nextMessage() else { throw TestFailure("signal") }
            #expect(signal.type == "direct" && signal.data == "to you" && signal.to == connected.connection.id && signal.from == nil)
        }
    }
}
