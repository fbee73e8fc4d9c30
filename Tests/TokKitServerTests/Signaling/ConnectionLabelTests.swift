import Logging
import Testing
import TokKitProtocol
@testable import TokKitServer

/// Structured logs (issue 17, observability): the server's lines about a connection carry its connection id and,
/// once it joined, its session id as swift-log metadata (`connection_id`, `session_id`), from the registry and from
/// the socket's handler alike.
@Suite(.timeLimit(.minutes(2))) struct ConnectionLabelTests {
    @Test func aLabelGivesTheIdsItWasSet() {
        let label = ConnectionLabel()
        #expect(label.metadata.isEmpty)
        label.set(connection: "c1", session: nil)
        #expect(label.metadata == ["connection_id": "c1"])
        label.set(connection: "c2", session: "2_s")
        #expect(label.metadata == ["connection_id": "c2", "session_id": "2_s"])
    }

    @Test func linesAboutAConnectionCarryItsConnectionAndSessionIds() async throws {
        let store = CapturingLogHandler.Store()
        let server = try TokKitServer(
            configuration: ServerConfiguration(apiKey: TestServer.apiKey, apiSecret: TestServer.apiSecret),
            logger: store.logger(level: .debug))
        let test = TestServer(server: server, port: try await server.start())
        let session = try await test.session()
        let (alice, aliceConnected) = try await test.join(session)
        let (bob, bobConnected) = try await test.join(session)
        let aliceId = aliceConnected.connection.id, bobId = bobConnected.connection.id
        _ = await alice.nextMessage()  // connectionCreated (bob)

        bob.send(.signal(.init(type: "bad type!")), rid: 1)  // refused: 1461
        guard case .error = await bob.nextMessage() else { throw TestFailure("bad signal accepted") }
        alice.send(.disconnect)  // destroyed: clientDisconnected
        guard case .connectionDestroyed = await bob.nextMessage() else { throw TestFailure("alice did not leave") }
        bob.close()  // a lost socket: the handler logs the close, the registry starts the resume grace
        await bob.finished()
        _ = await test.stats { $0.awaitingResume == 1 }
        // Bob resumes on a new socket (opened with a provisional id), then leaves: that socket's lines name Bob.
        let resumed = try await RawClient(port: test.port)
        resumed.send(.resume(.init(connectionID: bobId, resumeToken: bobConnected.resumeToken)), rid: 2)
        guard case let .connected(again) = await resumed.nextMessage(), again.resumed else {
            throw TestFailure("bob did not resume")
        }
        resumed.send(.disconnect)
        _ = await resumed.waitForClose()
        await resumed.finished()
        let refusedConnect = try await test.open(session, token: "not-a-token")
        _ = await refusedConnect.waitForClose()
        await server.stop()

        let entries = store.all
        func entry(_ message: String, of connection: String) -> CapturingLogHandler.Entry? {
            entries.first { $0.message == message && $0.metadata["connection_id"] == connection }
        }
        for (message, connection) in [("connected", aliceId), ("connected", bobId), ("request refused", bobId),
                                      ("connection destroyed", aliceId), ("signaling socket ended", aliceId),
                                      ("connection lost, awaiting resume", bobId), ("signaling socket ended", bobId),
                                      ("resumed", bobId)] {
            let found = entry(message, of: connection)
            #expect(found != nil, "no \"\(message)\" line with connection_id \(connection) in:\n\(entries.map(\.description).joined(separator: "\n"))")
            #expect(found?.metadata["session_id"] == session, "\(message): \(String(describing: found))")
        }
        #expect(entry("request refused", of: bobId)?.metadata["code"] == "1461")
        // Both of Bob's sockets ended under his id, the one that resumed included.
        let bobSockets = entries.filter { $0.message == "signaling socket ended" && $0.metadata["connection_id"] == bobId }
        #expect(Set(bobSockets.compactMap { $0.metadata["hb.request.id"] }).count == 2, "\(bobSockets)")
        // The handler's line also names the socket as Hummingbird's lines do.
        #expect(entry("signaling socket ended", of: bobId)?.metadata["hb.request.id"] != nil)
        // A connect refused: the provisional connection id, and the session it asked for (it exists).
        let refused = entries.first { $0.message == "connect refused" }
        #expect(refused?.metadata["connection_id"]?.isEmpty == false, "\(String(describing: refused))")
        #expect(refused?.metadata["session_id"] == session)
        // No line names a connection under the old key.
        #expect(!entries.contains { $0.metadata["connection"] != nil })
    }
}
