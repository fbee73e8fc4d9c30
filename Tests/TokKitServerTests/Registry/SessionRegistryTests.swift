import Foundation
import NIOWebSocket
import Testing
import TokKitProtocol
@testable import TokKitServer

/// Connection lifecycle over real 127.0.0.1 sockets: connect refusals, presence order, resume, timeouts, leaks.
@Suite(.timeLimit(.minutes(2))) struct SessionRegistryTests {
    /// Sends `connect` with `token` and expects `error` `code`, then the socket closed with 1008.
    private func expectRefused(
        _ server: TestServer, session: String, token: String, apiKey: String = TestServer.apiKey, code: ErrorCode,
        _ comment: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let client = try await RawClient(port: server.port)
        client.send(.connect(.init(apiKey: apiKey, sessionID: session, token: token)), rid: 1)
        guard case let .error(error) = await client.nextMessage(sourceLocation: sourceLocation) else {
            Issue.record("\(comment): no error reply", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == code && error.rid == 1, "\(comment): \(error)", sourceLocation: sourceLocation)
        let close = await client.waitForClose()
        #expect(close.closed && close.code == .policyViolation, "\(comment)", sourceLocation: sourceLocation)
        await client.finished()
    }

    /// Issue 17, item 1: a correctly signed token with `iat` = Int64.min trapped in `exp - iat` and killed the server.
    @Test func tokensWithExtremeTimesAreRefusedAndTheServerKeepsServing() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let (watcher, _) = try await server.join(session)
            let wall = Int64(Date().timeIntervalSince1970)
            for (iat, exp) in [(Int64.min, wall + 600), (.min, .max), (-1, .max), (wall, .max)] {
                let token = server.server.authority.sign(
                    TokenClaims(apiKey: TestServer.apiKey, sessionID: session, role: .moderator, issuedAt: iat,
                                expiresAt: exp, nonce: "n", connectionData: ""))
                try await expectRefused(server, session: session, token: token, code: .authorizationFailure, "iat \(iat) exp \(exp)")
            }
            watcher.send(.ping(.init(seq: 9)))
            #expect(await watcher.nextMessage() == .pong(.init(seq: 9)))
            let stats = await server.stats { $0.connections == 1 }
            #expect(stats.connected == 1 && stats.connecting == 0, "\(stats)")
        }
    }

    @Test func tamperedTokensAreRefusedOverTheSocketAndLeaveNothingRegistered() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let other = try await server.session()
            let (watcher, _) = try await server.join(session)
            let good = try await server.token(session)
            let wall = try server.server.authority.verify(good, now: Int64(Date().timeIntervalSince1970)).issuedAt
            func signed(_ edit: (inout TokenClaims) -> Void) -> String {
                var claims = TokenClaims(
                    apiKey: TestServer.apiKey, sessionID: session, role: .moderator, issuedAt: wall,
                    expiresAt: wall + 600, nonce: "n", connectionData: "")
                edit(&claims)
                return server.server.authority.sign(claims)
            }
            var cases: [(String, String, ErrorCode)] = []
            var bytes = Array(good.utf8)
            for index in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 12)) {
                bytes = Array(good.utf8)
                bytes[index] ^= 0x01
                cases.append(("bit flip at \(index)", String(decoding: bytes, as: UTF8.self), .authorizationFailure))
            }
            let wrongSecret = TokenAuthority(apiKey: TestServer.apiKey, apiSecret: "not-the-secret-0123456")
            cases.append(("wrong secret", try wrongSecret.issue(sessionID: session, now: wall).token, .authorizationFailure))
            cases.append(("wrong session", try await server.token(other), .authorizationFailure))
            cases.append(("expired", signed { $0.issuedAt = wall - 7_200; $0.expiresAt = wall - 60 }, .authorizationFailure))
            cases.append(("wrong api key", signed { $0.apiKey = "other-key" }, .authorizationFailure))
            let parts = good.split(separator: ".")
            let none = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
            cases.append(("alg none", "\(none).\(parts[1]).", .authorizationFailure))
            cases.append(("truncated", String(good.dropLast(5)), .authorizationFailure))
            cases.append(("malformed", "T1==not-a-token", .authorizationFailure))
            cases.append(("empty", "", .authorizationFailure))

            for (comment, token, code) in cases {
                try await expectRefused(server, session: session, token: token, code: code, comment)
            }
            try await expectRefused(server, session: "2_unknown", token: good, code: .invalidSessionID, "unknown session")
            try await expectRefused(server, session: "", token: good, code: .invalidSessionID, "empty session id")
            try await expectRefused(
                server, session: session, token: good, apiKey: "other-key", code: .authorizationFailure, "wrong apiKey")

            let client = try await RawClient(port: server.port)
            client.send(.connect(.init(version: 99, apiKey: TestServer.apiKey, sessionID: session, token: good)), rid: 4)
            guard case let .error(error) = await client.nextMessage() else { throw TestFailure("no error") }
            #expect(error.code == .incompatibleVersion)
            await client.finished()

            let stats = await server.stats { $0.connections == 1 && $0.sockets == 1 }
            #expect(stats.connected == 1 && stats.connecting == 0 && stats.sockets == 1, "\(stats)")
            // The watcher saw nobody join.
            watcher.send(.ping(.init(seq: 1)))
            #expect(await watcher.nextMessage() == .pong(.init(seq: 1)))
        }
    }

    /// Issue 17, item 7: the API key, `iss` and ids were compared with `String ==` (canonical equivalence), so
    /// U+212A KELVIN SIGN passed for "K"; a claim given twice was accepted with its last value.
    @Test func keysIdsAndClaimsAreComparedByteForByte() async throws {
        let key = "test-Key"
        let kelvinKey = "test-\u{212A}ey"
        #expect(key == kelvinKey, "the premise: Swift strings compare canonically")
        try await TestServer.with({ $0.apiKey = key }) { server in
            // A session whose id has a "K" to misspell (a base64url id of 32 characters has one 40 % of the time).
            var session = try await server.session()
            for _ in 0..<200 where !session.contains("K") { session = try await server.session() }
            try #require(session.contains("K"))
            let kelvinSession = session.replacingOccurrences(of: "K", with: "\u{212A}")
            let token = try await server.token(session)
            let wall = Int64(Date().timeIntervalSince1970)
            func signed(iss: String = key, sessionID: String = session) -> String {
                server.server.authority.sign(
                    TokenClaims(apiKey: iss, sessionID: sessionID, role: .moderator, issuedAt: wall, expiresAt: wall + 600,
                                nonce: "n", connectionData: ""))
            }
            try await expectRefused(
                server, session: session, token: token, apiKey: kelvinKey, code: .authorizationFailure, "Kelvin API key")
            try await expectRefused(
                server, session: session, token: signed(iss: kelvinKey), apiKey: key, code: .authorizationFailure,
                "Kelvin iss")
            try await expectRefused(
                server, session: session, token: signed(sessionID: kelvinSession), apiKey: key,
                code: .authorizationFailure, "Kelvin session_id in the token")
            try await expectRefused(
                server, session: kelvinSession, token: signed(sessionID: kelvinSession), apiKey: key,
                code: .invalidSessionID, "Kelvin session id in connect and token")
            let doubled = server.server.authority.sign(payload: Array(
                #"{"iss":"\#(key)","session_id":"\#(session)","role":"subscriber","iat":\#(wall),"exp":\#(wall + 600),"nonce":"n","connection_data":"","role":"moderator"}"#
                    .utf8))
            try await expectRefused(
                server, session: session, token: doubled, apiKey: key, code: .authorizationFailure, "role twice")
            let stats = await server.stats { $0.connections == 0 && $0.sockets == 0 }
            #expect(stats.connections == 0 && stats.sockets == 0, "nothing registered: \(stats)")

            // The exact spellings still connect.
            let client = try await RawClient(port: server.port)
            client.send(.connect(.init(apiKey: key, sessionID: session, token: signed())), rid: 1)
            guard case let .connected(connected) = await client.nextMessage() else { throw TestFailure("no connected") }
            #expect(connected.role == .moderator)
        }
    }

    @Test func threeClientsSeeEachOtherInOrder() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let (a, aConnected) = try await server.join(session, data: "name=a")
            #expect(aConnected.connections.isEmpty && aConnected.streams.isEmpty && aConnected.role == .publisher)
            #expect(aConnected.connection.data == "name=a" && aConnected.heartbeatInterval == 5_000)

            a.send(.publish(.init(name: "a-cam", videoDimensions: .init(width: 640, height: 480))), rid: 1)
            guard case let .ack(ack) = await a.nextMessage(), let streamA = ack.streamID else { throw TestFailure("ack") }
            guard case let .streamCreated(created) = await a.nextMessage() else { throw TestFailure("streamCreated") }
            #expect(created.stream.id == streamA && created.stream.connectionID == aConnected.connection.id)
            #expect(created.stream.name == "a-cam" && created.stream.videoType == .camera && created.stream.creationTime > 0)

            let (b, bConnected) = try await server.join(session, data: "name=b")
            #expect(bConnected.connections == [aConnected.connection])
            #expect(bConnected.streams.map(\.id) == [streamA])
            #expect(await a.nextMessage() == .connectionCreated(.init(connection: bConnected.connection)))

            let (c, cConnected) = try await server.join(session, data: "name=c")
            #expect(cConnected.connections == [aConnected.connection, bConnected.connection])
            #expect(await a.nextMessage() == .connectionCreated(.init(connection: cConnected.connection)))
            #expect(await b.nextMessage() == .connectionCreated(.init(connection: cConnected.connection)))

            b.send(.publish(.init(name: "b-screen", hasAudio: false, videoType: .screen)), rid: 2)
            guard case .ack = await b.nextMessage() else { throw TestFailure("ack b") }
            for client in [a, b, c] {
                guard case let .streamCreated(event) = await client.nextMessage() else { throw TestFailure("created") }
                #expect(event.stream.name == "b-screen" && event.stream.videoType == .screen && !event.stream.hasAudio)
            }

            // a leaves cleanly: others get its stream destroyed, then its connection destroyed.
            a.send(.disconnect)
            guard case let .connectionDestroyed(own) = await a.nextMessage() else { throw TestFailure("own destroyed") }
            #expect(own.connection.id == aConnected.connection.id && own.reason == .clientDisconnected)
            #expect(await a.waitForClose().code == .normalClosure)
            for client in [b, c] {
                guard case let .streamDestroyed(gone) = await client.nextMessage() else { throw TestFailure("stream gone") }
                #expect(gone.stream.id == streamA && gone.reason == .clientDisconnected)
                guard case let .connectionDestroyed(left) = await client.nextMessage() else { throw TestFailure("left") }
                #expect(left.connection.id == aConnected.connection.id && left.reason == .clientDisconnected)
            }
            let stats = await server.stats { $0.connected == 2 && $0.streams == 1 }
            #expect(stats.connected == 2 && stats.streams == 1, "\(stats)")
        }
    }

    @Test func hundredConnectDisconnectCyclesLeaveNothingBehind() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let (watcher, _) = try await server.join(session)
            let fdsBefore = openFileDescriptors()
            for cycle in 0..<100 {
                let (client, connected) = try await server.join(session)
                if cycle % 2 == 0 {
                    client.send(.publish(.init(name: "s\(cycle)")), rid: 1)
                    guard case .ack = await client.nextMessage() else { throw TestFailure("ack \(cycle)") }
                }
                client.send(.disconnect)
                #expect(await client.waitForClose().closed)
                await client.finished()
                // The watcher sees the whole life of every connection, in order.
                guard case let .connectionCreated(created) = await watcher.nextMessage(),
                      created.connection.id == connected.connection.id
                else { throw TestFailure("created \(cycle)") }
                if cycle % 2 == 0 {
                    guard case .streamCreated = await watcher.nextMessage(),
                          case .streamDestroyed = await watcher.nextMessage()
                    else { throw TestFailure("stream \(cycle)") }
                }
                guard case let .connectionDestroyed(destroyed) = await watcher.nextMessage(),
                      destroyed.connection.id == connected.connection.id
                else { throw TestFailure("destroyed \(cycle)") }
            }
            let stats = await server.stats { $0.connections == 1 && $0.sockets == 1 && $0.socketTasks == 1 }
            #expect(stats.connected == 1 && stats.connecting == 0 && stats.awaitingResume == 0, "\(stats)")
            #expect(stats.sockets == 1 && stats.socketTasks == 1 && stats.streams == 0 && stats.subscriptions == 0)
            // Descriptors: every cycle's client and server sockets are closed again (small slack for pools).
            var fdsAfter = openFileDescriptors()
            for _ in 0..<200 where fdsAfter > fdsBefore + 4 {
                try await Task.sleep(for: .milliseconds(10))
                fdsAfter = openFileDescriptors()
            }
            #expect(fdsAfter <= fdsBefore + 4, "fds before \(fdsBefore), after \(fdsAfter)")
        }
    }

    @Test func aLostSocketResumesWithinGraceAndOthersSeeNothing() async throws {
        try await TestServer.with({ $0.resumeGraceMs = 5_000 }) { server in
            let session = try await server.session()
            let (a, aConnected) = try await server.join(session)
            a.send(.publish(.init(name: "a")), rid: 1)
            guard case let .ack(ack) = await a.nextMessage() else { throw TestFailure("ack") }
            _ = await a.nextMessage()
            let (b, _) = try await server.join(session)
            _ = await a.nextMessage()  // connectionCreated b

            a.close()  // no disconnect: the socket is "lost"
            _ = await a.waitForClose()
            await a.finished()
            let waiting = await server.stats { $0.awaitingResume == 1 }
            #expect(waiting.awaitingResume == 1 && waiting.streams == 1, "\(waiting)")

            let resumed = try await RawClient(port: server.port)
            resumed.send(.resume(.init(connectionID: aConnected.connection.id, resumeToken: aConnected.resumeToken)), rid: 2)
            guard case let .connected(again) = await resumed.nextMessage() else { throw TestFailure("resumed") }
            #expect(again.resumed && again.connection == aConnected.connection)
            #expect(again.streams.map(\.id) == [ack.streamID] && again.connections.count == 1)
            #expect(again.resumeToken != aConnected.resumeToken)
            #expect(await resumed.nextMessage() == .ack(.init(rid: 2)), "the resume's rid is acknowledged (6.1)")

            // b saw nothing of it, and signals flow again.
            b.send(.signal(.init(type: "hello", data: "x")), rid: 3)
            guard case .ack = await b.nextMessage() else { throw TestFailure("ack b") }
            guard case let .signal(signal) = await b.nextMessage() else { throw TestFailure("signal on b") }
            #expect(signal.type == "hello")
            guard case let .signal(onA) = await resumed.nextMessage() else { throw TestFailure("signal on a") }
            #expect(onA.type == "hello")

            // The old resume token is spent.
            let replay = try await RawClient(port: server.port)
            replay.send(.resume(.init(connectionID: aConnected.connection.id, resumeToken: aConnected.resumeToken)), rid: 4)
            guard case let .error(error) = await replay.nextMessage() else { throw TestFailure("replay") }
            #expect(error.code == .resumeFailed)
            await replay.finished()
        }
    }

    @Test func withoutResumeTheConnectionIsDestroyedForEveryoneAfterGrace() async throws {
        try await TestServer.with({ $0.resumeGraceMs = 200 }) { server in
            let session = try await server.session()
            let (a, aConnected) = try await server.join(session)
            a.send(.publish(.init(name: "a")), rid: 1)
            _ = await a.nextMessage()
            _ = await a.nextMessage()
            let (b, _) = try await server.join(session)
            a.close()
            await a.finished()
            guard case let .streamDestroyed(stream) = await b.nextMessage() else { throw TestFailure("stream") }
            #expect(stream.reason == .networkDisconnected)
            guard case let .connectionDestroyed(gone) = await b.nextMessage() else { throw TestFailure("connection") }
            #expect(gone.connection.id == aConnected.connection.id && gone.reason == .networkDisconnected)

            let late = try await RawClient(port: server.port)
            late.send(.resume(.init(connectionID: aConnected.connection.id, resumeToken: aConnected.resumeToken)))
            guard case let .error(error) = await late.nextMessage() else { throw TestFailure("late resume") }
            #expect(error.code == .resumeFailed)
            #expect(await late.waitForClose().code == .policyViolation)
        }
    }

    @Test func silentClientsAreDroppedAndPingingOnesKept() async throws {
        try await TestServer.with({
            $0.heartbeatIntervalMs = 100
            $0.heartbeatTimeoutMs = 1_500
            $0.resumeGraceMs = 0
        }) { server in
            let session = try await server.session()
            let (silent, silentConnected) = try await server.join(session)
            let (pinger, _) = try await server.join(session)
            _ = await silent.nextMessage()  // connectionCreated pinger
            // The pinger pings every 50 ms until the silent one is reported gone (bounded: 400 pings, 30 s; any
            // other answer, or none, ends the loop as a failure).
            var sawDestroyed = false
            let deadline = ContinuousClock.now + .seconds(30)
            pinging: for seq in 0..<400 where !sawDestroyed && ContinuousClock.now < deadline {
                pinger.send(.ping(.init(seq: seq)))
                switch await pinger.nextMessage() {
                case .pong: try await Task.sleep(for: .milliseconds(50))
                case let .connectionDestroyed(event):
                    #expect(event.connection.id == silentConnected.connection.id && event.reason == .networkDisconnected)
                    sawDestroyed = true
                case let other:
                    Issue.record("unexpected answer to ping \(seq): \(String(describing: other))")
                    break pinging
                }
            }
            #expect(sawDestroyed)
            #expect(await silent.waitForClose().code == .goingAway)
            let stats = await server.stats { $0.connections == 1 }
            #expect(stats.connected == 1, "\(stats)")
        }
    }

    @Test func aSocketThatNeverConnectsIsClosedAtTheDeadline() async throws {
        try await TestServer.with({ $0.connectTimeoutMs = 200 }) { server in
            let client = try await RawClient(port: server.port)
            client.send(.publish(.init()), rid: 1)
            guard case let .error(notConnected) = await client.nextMessage() else { throw TestFailure("error") }
            #expect(notConnected.code == .notConnected && notConnected.rid == 1)
            guard case let .error(late) = await client.nextMessage() else { throw TestFailure("deadline") }
            #expect(late.code == .connectFailed)
            #expect(await client.waitForClose().code == .policyViolation)
            let stats = await server.stats { $0.connections == 0 && $0.socketTasks == 0 }
            #expect(stats.connections == 0 && stats.sockets == 0 && stats.socketTasks == 0, "\(stats)")
        }
    }
}

/// Open descriptors of this process (entries of /proc/self/fd).
func openFileDescriptors() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}
