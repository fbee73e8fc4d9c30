import Hummingbird
import Testing
import TokKitProtocol
@testable import TokKitServer

/// The metrics of `GET /metrics` (issue 17, observability) follow what happens on a live server: sessions,
/// connections, streams, signals, refused requests by code, outbox overflows.
@Suite(.timeLimit(.minutes(2))) struct ServerMetricsTests {
    @Test func countersAndGaugesFollowSessionsConnectionsStreamsAndSignals() async throws {
        try await TestServer.with { server in
            let before = try await server.metrics()
            #expect(before.value("tokkit_sessions") == 0)
            #expect(before.value("tokkit_sessions_created_total") == 0)
            #expect(before.value("tokkit_connections_total") == 0)
            #expect(before.value("tokkit_connections_destroyed_total", ["reason": "clientDisconnected"]) == 0)

            let session = try await server.session()
            let (alice, _) = try await server.join(session)
            let (bob, _) = try await server.join(session)
            _ = await alice.nextMessage()  // connectionCreated (bob)
            alice.send(.publish(.init(name: "cam")), rid: 1)
            guard case .ack = await alice.nextMessage() else { throw TestFailure("publish") }
            _ = await alice.nextMessage()  // streamCreated
            _ = await bob.nextMessage()  // streamCreated
            bob.send(.signal(.init(type: "chat", data: "hi")), rid: 2)  // to both
            guard case .ack = await bob.nextMessage() else { throw TestFailure("signal") }
            _ = await bob.nextMessage()  // its own signal
            bob.send(.signal(.init(type: "bad type!", data: "x")), rid: 3)
            guard case let .error(error) = await bob.nextMessage(), error.code == .invalidSignalType else {
                throw TestFailure("bad signal type accepted")
            }
            let admin: HTTPFields = [Caller.adminJWTHeader: server.server.authority.adminToken(now: WallClock.seconds())]
            let rest = try await server.http(
                .post, "/v2/project/\(TestServer.apiKey)/session/\(session)/signal", headers: admin,
                body: #"{"type":"chat","data":"from the project"}"#)
            #expect(rest.status == .noContent)
            let unknown = try await server.http(.get, "/v2/project/\(TestServer.apiKey)/session/2_nope/stream", headers: admin)
            #expect(unknown.status == .notFound)

            let during = try await server.metrics()
            #expect(during.value("tokkit_sessions") == 1)
            #expect(during.value("tokkit_sessions_created_total") == 1)
            #expect(during.value("tokkit_connections", ["state": "connected"]) == 2)
            #expect(during.value("tokkit_connections", ["state": "connecting"]) == 0)
            #expect(during.value("tokkit_connections_total") == 2)
            #expect(during.value("tokkit_signaling_sockets") == 2)
            #expect(during.value("tokkit_streams") == 1)
            #expect(during.value("tokkit_streams_published_total") == 1)
            #expect(during.value("tokkit_signals_total", ["via": "websocket"]) == 1)
            #expect(during.value("tokkit_signals_total", ["via": "rest"]) == 1)
            #expect(during.value("tokkit_signal_deliveries_total") == 4)  // two signals, two members each
            #expect(during.value("tokkit_refused_requests_total", ["code": "1461", "via": "websocket"]) == 1)
            #expect(during.value("tokkit_refused_requests_total", ["code": "1005", "via": "rest"]) == 1)

            alice.send(.disconnect)
            _ = await bob.nextMessage()  // signal from the project
            _ = await bob.nextMessage()  // streamDestroyed
            guard case .connectionDestroyed = await bob.nextMessage() else { throw TestFailure("alice did not leave") }
            let after = try await server.metrics()
            #expect(after.value("tokkit_connections_destroyed_total", ["reason": "clientDisconnected"]) == 1)
            #expect(after.value("tokkit_connections", ["state": "connected"]) == 1)
            #expect(after.value("tokkit_streams") == 0)
            #expect(after.value("tokkit_streams_published_total") == 1)
        }
    }

    /// A connect refused for a bad token and a connection the per-address cap refuses are counted by code.
    @Test func refusalsAreCountedByCodeAndTransport() async throws {
        try await TestServer.with({ $0.maxConnectionsPerAddress = 2 }) { server in
            let session = try await server.session()
            let refused = try await server.open(session, token: "not-a-token")
            guard case let .error(error) = await refused.nextMessage() else { throw TestFailure("bad token accepted") }
            #expect(await refused.waitForClose().closed)
            await refused.finished()
            _ = await server.stats { $0.tcpConnections == 0 }
            do {
                // Two connections from 127.0.0.1 held (a WebSocket and an HTTP connection it answered), the third
                // refused (503 / 1430, before any route).
                let (holder, _) = try await server.join(session)
                let second = try await RawTCP.connect(port: server.port)
                await second.send("GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                #expect(await second.readHead(within: .seconds(5)).status == 200)
                let third = try await RawTCP.connect(port: server.port)
                await third.send("GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                #expect(await third.readUntilClosed(within: .seconds(5)).status == 503)
                holder.close()
                await holder.finished()
                withExtendedLifetime(second) {}
            }
            _ = await server.stats { $0.tcpConnections == 0 }
            let metrics = try await server.metrics()
            #expect(metrics.value("tokkit_refused_requests_total", ["code": "\(error.code.rawValue)", "via": "websocket"]) == 1)
            #expect(metrics.value("tokkit_refused_requests_total", ["code": "1430", "via": "http"]) == 1)
        }
    }

    /// A client that does not read is dropped once over its outbox's byte budget (as in
    /// `ServerLimitsTests`): the overflow and the messages it discarded are counted.
    @Test func outboxOverflowsAreCounted() async throws {
        try await TestServer.with({
            $0.outboxCapacity = 100_000
            $0.outboxMaxBytes = 262_144
            $0.closeTimeoutMs = 500
            $0.heartbeatTimeoutMs = 120_000
        }) { server in
            let session = try await server.session()
            let (sender, _) = try await server.join(session)
            let reader = try await RawTCP.connect(port: server.port, receiveBuffer: 4_096)
            #expect(await reader.upgradeToWebSocket())
            let connect = ClientRequest(
                .connect(.init(apiKey: TestServer.apiKey, sessionID: session, token: try await server.token(session))))
            await reader.sendTextFrame(String(decoding: WireCodec.encode(connect), as: UTF8.self))
            guard case let .connectionCreated(created) = await sender.nextMessage() else {
                throw TestFailure("the sender did not see the reader join")
            }
            #expect(try await server.metrics().value("tokkit_outbox_overflows_total") == 0)
            let data = String(repeating: "x", count: 8_000)
            var dropped = await server.server.stats()
            for _ in 0..<50 where dropped.awaitingResume == 0 {
                for _ in 0..<50 { sender.send(.signal(.init(type: "flood", data: data, to: created.connection.id))) }
                dropped = await server.stats(within: .milliseconds(500)) { $0.awaitingResume == 1 }
            }
            #expect(dropped.awaitingResume == 1, "\(dropped)")
            let metrics = try await server.metrics()
            #expect(metrics.value("tokkit_outbox_overflows_total") == 1)
            #expect((metrics.value("tokkit_outbox_dropped_messages_total") ?? 0) >= 1)
            #expect(metrics.value("tokkit_connections", ["state": "awaiting_resume"]) == 1)
            withExtendedLifetime(reader) {}
        }
    }
}
