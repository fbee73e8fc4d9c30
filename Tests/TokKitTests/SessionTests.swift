import Dispatch
import FoundationEssentials
import Synchronization
import Testing
import TokKitProtocol
import TokKitServer

#if canImport(Glibc)
import Glibc
#endif

@testable import TokKit
import TokKitTesting

/// Connecting, disconnecting, what each client sees of the others, and the event delivery contract, against the
/// real server in process on 127.0.0.1.
extension LiveServer { @Suite struct SessionTests {
    @Test func connectReportsOwnConnectionStatusAndCapabilities() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let session = server.session()
        #expect(session.sessionConnectionStatus == .notConnected)
        #expect(session.capabilities == .none)
        let recorder = EventRecorder(session)
        try await session.connect(token: try await server.token(data: "alice"))

        #expect(session.sessionConnectionStatus == .connected)
        let me = try #require(session.connection)
        #expect(me.data == "alice")
        #expect(!me.connectionID.rawValue.isEmpty)
        #expect(session.connections.isEmpty)
        #expect(session.connectionCount == 0)
        #expect(session.capabilities == SessionCapabilities(
            canPublish: true, canSubscribe: true, canSignal: true, canForceMute: false, canForceDisconnect: false))
        #expect(await recorder.wait { $0.map(\.name) == ["connected"] })
        if case .connected(let c) = recorder.all.first { #expect(c == me) }

        await session.disconnect()
        #expect(session.sessionConnectionStatus == .notConnected)
        #expect(session.connection == nil)
        #expect(session.capabilities == .none)
        #expect(await recorder.wait { $0.map(\.name) == ["connected", "disconnected"] })
        #expect(await eventually { await server.server.stats().connections == 0 })
    }

    @Test func twoClientsSeeEachOther() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ra) = try await server.connected(data: "A")
        let (b, rb) = try await server.connected(data: "B")
        let aID = try #require(a.connection).connectionID
        let bID = try #require(b.connection).connectionID

        // B learns of A right after its own connected event; A hears of B joining.
        #expect(await rb.wait { $0.map(\.name) == ["connected", "connectionCreated"] })
        #expect(rb.all.compactMap(\.connectionCreated).map(\.connectionID) == [aID])
        #expect(rb.all.compactMap(\.connectionCreated).first?.data == "A")
        let seenByA = await ra.wait(for: 1) { $0.connectionCreated }
        #expect(seenByA.map(\.connectionID) == [bID])
        #expect(seenByA.first?.data == "B")
        #expect(a.connections.map(\.connectionID) == [bID])
        #expect(b.connections.map(\.connectionID) == [aID])
        #expect(a.connectionCount == 1 && b.connectionCount == 1)

        await b.disconnect()
        let gone = await ra.wait(for: 1) { $0.connectionDestroyed }
        #expect(gone.map(\.connectionID) == [bID])
        #expect(a.connections.isEmpty)
        await a.disconnect()
    }

    @Test func threeClientsSeeConnectionsInJoinOrder() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, ra) = try await server.connected(data: "A")
        let (b, _) = try await server.connected(data: "B")
        let (c, rc) = try await server.connected(data: "C")
        let ids = [a, b, c].map { $0.connection!.connectionID }

        #expect(await rc.wait { $0.map(\.name) == ["connected", "connectionCreated", "connectionCreated"] })
        #expect(rc.all.compactMap(\.connectionCreated).map(\.connectionID) == [ids[0], ids[1]])
        #expect(c.connections.map(\.data) == ["A", "B"])
        let seenByA = await ra.wait(for: 2) { $0.connectionCreated }
        #expect(seenByA.map(\.connectionID) == [ids[1], ids[2]])
        #expect(a.connections.map(\.data) == ["B", "C"])
        for s in [a, b, c] { await s.disconnect() }
        #expect(await eventually { await server.server.stats().connections == 0 })
    }

    @Test func delegateGetsTheSameEventsInOrderOnItsQueue() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let queue = DispatchQueue(label: "test.delegate")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let delegate = RecordingDelegate(key: key)
        let session = Session(
            apiKey: TestServer.apiKey, sessionID: SessionID(server.sessionID), serverURL: URL(string: server.url)!, delegate: delegate,
            delegateQueue: queue, settings: .quiet)
        let recorder = EventRecorder(session)
        try await session.connect(token: try await server.token())
        let (other, _) = try await server.connected()
        try await other.signal(type: "t", data: "d")
        await other.disconnect()
        await session.disconnect()

        let expected = ["connected", "connectionCreated", "signal", "connectionDestroyed", "disconnected"]
        #expect(await recorder.wait { $0.map(\.name) == expected })
        #expect(await eventually { delegate.names == expected })
        #expect(delegate.offQueueCalls == 0)
        #expect(session.delegateQueue === queue)
    }

    @Test func connectTwiceIsIllegal() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (a, _) = try await server.connected()
        await #expect(throws: SessionError.illegalState("connect() while connected")) {
            try await a.connect(token: try await server.token())
        }
        #expect(a.sessionConnectionStatus == .connected)
        await a.disconnect()
    }

    // MARK: - Refusals

    @Test func garbageTokenIsAuthorizationFailure() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let session = server.session()
        let recorder = EventRecorder(session)
        let error = await connectError(session, token: "not.a.token")
        #expect(error?.code == 1004)
        #expect(session.sessionConnectionStatus == .failed)
        #expect(await recorder.wait { $0.compactMap(\.failure).map(\.code) == [1004] })
        #expect(await server.server.stats().connections == 0)
    }

    @Test func expiredAndForeignTokensAreAuthorizationFailures() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let now = Int64(Date().timeIntervalSince1970)
        let expired = server.server.authority.sign(TokenClaims(
            apiKey: TestServer.apiKey, sessionID: server.sessionID, role: .publisher, issuedAt: now - 100,
            expiresAt: now - 10, nonce: "n", connectionData: ""))
        #expect(await connectError(server.session(), token: expired)?.code == 1004)

        let forged = TokenAuthority(apiKey: TestServer.apiKey, apiSecret: "another-secret-0123456789")
            .sign(TokenClaims(apiKey: TestServer.apiKey, sessionID: server.sessionID, role: .publisher,
                              issuedAt: now, expiresAt: now + 60, nonce: "n", connectionData: ""))
        #expect(await connectError(server.session(), token: forged)?.code == 1004)

        // A valid token for another session of the server.
        let other = try await server.server.createSession()
        let otherToken = try await server.server.issueToken(sessionID: other.sessionID).token
        #expect(await connectError(server.session(), token: otherToken)?.code == 1004)
    }

    @Test func unknownSessionIsInvalidSession() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let session = Session(apiKey: TestServer.apiKey, sessionID: "2_nope", serverURL: URL(string: server.url)!, settings: .quiet)
        #expect(await connectError(session, token: try await server.token())?.code == 1005)
    }

    @Test func unreachableServerIsConnectionFailed() async throws {
        // Bind and close a socket to get a port nobody listens on.
        let server = try await TestServer.start()
        let url = server.url
        let token = try await server.token()
        await server.stop()
        let session = Session(apiKey: TestServer.apiKey, sessionID: SessionID(server.sessionID), serverURL: URL(string: url)!, settings: .quiet)
        #expect(await connectError(session, token: token)?.code == 1006)
        #expect(session.sessionConnectionStatus == .failed)
        #expect(await eventually { SignalingLink.liveCount == 0 })
    }

    @Test func emptyTokenAndBadURLAreInvalidParameters() async throws {
        let session = Session(apiKey: "k", sessionID: "s", serverURL: URL(string: "ftp://127.0.0.1:1")!, settings: .quiet)
        #expect(await connectError(session, token: "")?.code == 1011)
        #expect(await connectError(session, token: "t")?.code == 1011)
        #expect(session.sessionConnectionStatus == .notConnected)
    }

    // MARK: - Leaks

    /// 100 connect/disconnect cycles leave no connection on the server, no link task and no descriptor behind.
    @Test func hundredCyclesLeaveNothingBehind() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let token = try await server.token()
        // Warm up once (the event loop group and its descriptors are created on first use).
        let warm = server.session()
        try await warm.connect(token: token)
        await warm.disconnect()
        #expect(await eventually { SignalingLink.liveCount == 0 })
        let fdsBefore = openDescriptors()

        for i in 0..<100 {
            let session = server.session()
            try await session.connect(token: token)
            #expect(session.sessionConnectionStatus == .connected, "cycle \(i)")
            await session.disconnect()
            #expect(session.sessionConnectionStatus == .notConnected, "cycle \(i)")
        }

        #expect(await eventually { await server.server.stats().connections == 0 })
        #expect(await eventually { SignalingLink.liveCount == 0 })
        #expect(await eventually { openDescriptors() <= fdsBefore + 2 }, "descriptors: \(fdsBefore) → \(openDescriptors())")
        let stats = await server.server.stats()
        #expect(stats.connections == 0 && stats.sockets == 0 && stats.streams == 0, "\(stats)")
    }

    // MARK: - Helpers

    private func connectError(_ session: Session, token: String) async -> SessionError? {
        do {
            try await session.connect(token: token)
            await session.disconnect()
            return nil
        } catch {
            return error
        }
    }

    private func openDescriptors() -> Int {
        guard let dir = opendir("/proc/self/fd") else { return -1 }
        defer { closedir(dir) }
        var n = 0
        while readdir(dir) != nil { n += 1 }
        return n
    }
}}

/// Records delegate calls and whether each ran on the expected queue.
final class RecordingDelegate: SessionDelegate {
    private let state = Mutex<(names: [String], offQueue: Int)>(([], 0))
    private let key: DispatchSpecificKey<Int>

    init(key: DispatchSpecificKey<Int>) { self.key = key }

    var names: [String] { state.withLock { $0.names } }
    var offQueueCalls: Int { state.withLock { $0.offQueue } }

    private func record(_ name: String) {
        let onQueue = DispatchQueue.getSpecific(key: key) == 7
        state.withLock {
            $0.names.append(name)
            if !onQueue { $0.offQueue += 1 }
        }
    }

    func sessionDidConnect(_ session: Session) { record("connected") }
    func sessionDidDisconnect(_ session: Session) { record("disconnected") }
    func session(_ session: Session, didFailWithError error: SessionError) { record("failed(\(error.code))") }
    func session(_ session: Session, connectionCreated connection: Connection) { record("connectionCreated") }
    func session(_ session: Session, connectionDestroyed connection: Connection) { record("connectionDestroyed") }
    func session(_ session: Session, receivedSignalType type: String, from connection: Connection?, with data: String) {
        record("signal")
    }
}
