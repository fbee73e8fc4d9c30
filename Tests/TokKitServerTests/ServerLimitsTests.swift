import Hummingbird
import NIOWebSocket
import Testing
import TokKitProtocol
@testable import TokKitServer

/// Bounded memory (issue 17, item 5): a client that does not read is dropped once its outbox is over its byte
/// budget, the server holds at most `maxSessions` sessions, and sessions that stay empty expire.
@Suite(.timeLimit(.minutes(2))) struct ServerLimitsTests {
    /// Signals of 8 kB go to one client that does not read, in batches, until the server drops it (at most 20 MB,
    /// the message cap set out of reach): once the kernel's socket buffers toward it are full (a few MB, which
    /// varies), its outbox passes the (test) byte budget of 256 KiB and the server drops it (it awaits resume) and
    /// closes its socket, though it never reads. Before, the outbox was bounded by count only and held all of it.
    @Test func aClientThatDoesNotReadIsDroppedOnceOverTheByteBudget() async throws {
        try await TestServer.with({
            $0.outboxCapacity = 100_000
            $0.outboxMaxBytes = 262_144
            $0.closeTimeoutMs = 500
            $0.heartbeatTimeoutMs = 120_000  // the silent client must not be dropped for its silence
        }) { server in
            let session = try await server.session()
            let (sender, _) = try await server.join(session)
            let reader = try await RawTCP.connect(port: server.port, receiveBuffer: 4_096)
            #expect(await reader.upgradeToWebSocket())
            let connect = ClientRequest(
                .connect(.init(apiKey: TestServer.apiKey, sessionID: session, token: try await server.token(session))))
            await reader.sendTextFrame(String(decoding: WireCodec.encode(connect), as: UTF8.self))
            guard case let .connectionCreated(created) = await sender.nextMessage() else {
                Issue.record("the sender did not see the reader join")
                return
            }

            let data = String(repeating: "x", count: 8_000)
            var dropped = await server.server.stats()
            for _ in 0..<50 where dropped.awaitingResume == 0 {
                for _ in 0..<50 { sender.send(.signal(.init(type: "flood", data: data, to: created.connection.id))) }
                dropped = await server.stats(within: .milliseconds(500)) { $0.awaitingResume == 1 }
            }
            #expect(dropped.connected == 1 && dropped.awaitingResume == 1, "\(dropped)")
            #expect(await reader.closedByPeer(within: .seconds(10)), "the socket of the client that does not read is open")
        }
    }

    /// The session cap refuses one more session in process, over REST (503 / 1430) and through quick start.
    @Test func theServerHoldsAtMostMaxSessions() async throws {
        try await TestServer.with({ $0.maxSessions = 2 }) { server in
            _ = try await server.session()
            _ = try await server.session()
            await #expect(throws: ProtocolError(.limitReached, "too many sessions")) { try await server.session() }
            let admin: HTTPFields = [Caller.adminJWTHeader: server.server.authority.adminToken(now: WallClock.seconds())]
            let rest = try await server.http(.post, "/session/create", headers: admin)
            #expect(rest.status == .serviceUnavailable && TestServer.restError(rest.body)?.code == .limitReached)
            let room = try await server.http(.get, "/room/one-more")
            #expect(room.status == .serviceUnavailable && TestServer.restError(room.body)?.code == .limitReached)
        }
    }

    /// A session holds at most `maxConnectionsPerSession` connections (here 2): one more `connect` is refused with
    /// 1430 and closed 1008, registering nothing; once a member left there is room again.
    @Test func aSessionHoldsAtMostMaxConnectionsPerSession() async throws {
        try await TestServer.with({ $0.maxConnectionsPerSession = 2 }) { server in
            let session = try await server.session()
            let (first, _) = try await server.join(session)
            let (second, _) = try await server.join(session)
            let third = try await server.open(session, token: try await server.token(session))
            guard case let .error(error) = await third.nextMessage() else {
                Issue.record("a third connection was let in")
                return
            }
            #expect(error.code == .limitReached && error.message == "session is full")
            #expect(await third.waitForClose().code == .policyViolation)
            #expect(await server.server.stats().connected == 2)
            first.send(.disconnect)
            _ = await second.nextMessage()  // connectionDestroyed
            let (fourth, _) = try await server.join(session)
            withExtendedLifetime(fourth) {}
        }
    }

    /// An empty session is forgotten after `emptySessionTimeoutMs` (here 300 ms): its token then gets 1005, its room
    /// name makes a new session. A session with a member stays, and expires once its member left.
    @Test func sessionsThatStayEmptyExpire() async throws {
        try await TestServer.with({ $0.emptySessionTimeoutMs = 300 }) { server in
            let empty = try await server.session()
            let token = try await server.token(empty)
            let roomBefore = try await Self.roomSession(server, "expiring")
            // The member's socket is open before its session exists: the session is then empty only for the
            // in-process token and the connect, not for a WebSocket handshake too (under load, more than 300 ms).
            let member = try await RawClient(port: server.port)
            let occupied = try await server.session()
            member.send(.connect(.init(apiKey: TestServer.apiKey, sessionID: occupied, token: try await server.token(occupied))))
            guard case .connected = await member.nextMessage() else { throw TestFailure("no connected reply") }

            let afterExpiry = await server.stats { $0.sessions == 1 }
            #expect(afterExpiry.sessions == 1, "\(afterExpiry)")
            try await Task.sleep(for: .milliseconds(400))
            _ = try await server.server.issueToken(sessionID: occupied)  // still there, well past 300 ms
            let late = try await server.open(empty, token: token)
            guard case let .error(error) = await late.nextMessage() else {
                Issue.record("connect to an expired session did not fail")
                return
            }
            #expect(error.code == .invalidSessionID)
            #expect(try await Self.roomSession(server, "expiring") != roomBefore)

            member.send(.disconnect)  // the occupied session and the new room's expire in turn
            #expect(await server.stats { $0.sessions == 0 }.sessions == 0)
        }
    }

    private static func roomSession(_ server: TestServer, _ name: String) async throws -> String {
        let reply = try await server.http(.get, "/room/\(name)")
        return try WireCodec.decode(SessionCredentials.self, from: reply.body).sessionID
    }
}
