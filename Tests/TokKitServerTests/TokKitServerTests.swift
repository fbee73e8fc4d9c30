import NIOWebSocket
import Testing
import TokKitProtocol
@testable import TokKitServer

/// Embedding: start on an ephemeral port, stop cleanly with clients attached, refuse bad configurations.
@Suite(.timeLimit(.minutes(2))) struct TokKitServerTests {
    @Test func startsOnAnEphemeralPortAndStopsCleanlyWithClientsAttached() async throws {
        let test = try await TestServer.start()
        #expect(test.port > 0 && test.server.port == test.port)
        let session = try await test.session()
        let (a, _) = try await test.join(session)
        let (b, _) = try await test.join(session)
        let lost = try await RawClient(port: test.port)  // never connects
        await test.server.stop()
        for (name, client) in [("a", a), ("b", b), ("lost", lost)] {
            let close = await client.waitForClose()
            #expect(close.closed && close.code == .goingAway, "client \(name): \(close)")
            await client.finished()
        }
        let stats = await test.server.stats()
        #expect(stats.connections == 0 && stats.sockets == 0 && stats.socketTasks == 0, "\(stats)")
        #expect(test.server.port == nil)
        await #expect(throws: (any Error).self) { _ = try await RawClient(port: test.port) }
        await test.server.stop()  // idempotent
        do throws(TokKitServerError) {
            _ = try await test.server.start()
            Issue.record("restarted a stopped server")
        } catch {
            #expect(error == .alreadyStarted)
        }
    }

    @Test func aTakenPortFailsToBindWithATypedError() async throws {
        try await TestServer.with { first in
            var configuration = ServerConfiguration(apiKey: "k", apiSecret: "secret-0123456789ab", port: first.port)
            configuration.host = "127.0.0.1"
            let second = try TokKitServer(configuration: configuration)
            do throws(TokKitServerError) {
                _ = try await second.start()
                Issue.record("bound a taken port")
                await second.stop()
            } catch {
                guard case .bindFailed = error else {
                    Issue.record("wrong error \(error)")
                    return
                }
            }
        }
    }

    @Test func invalidConfigurationsAreRefused() {
        var configuration = ServerConfiguration(apiKey: "k", apiSecret: "short")
        #expect(throws: TokKitServerError.self) { try TokKitServer(configuration: configuration) }
        configuration.apiSecret = "long-enough-secret-123"
        configuration.heartbeatTimeoutMs = configuration.heartbeatIntervalMs
        #expect(throws: TokKitServerError.self) { try TokKitServer(configuration: configuration) }
        configuration = ServerConfiguration(apiKey: "", apiSecret: "long-enough-secret-123")
        #expect(throws: TokKitServerError.self) { try TokKitServer(configuration: configuration) }
    }

    @Test func theConfigFileFillsOnlyTheFieldsItNames() throws {
        let json = #"{"apiKey":"k","apiSecret":"s","port":4000,"resumeGraceMs":0}"#
        let configuration = try WireCodec.decode(ServerConfiguration.self, from: Array(json.utf8))
        #expect(configuration.port == 4000 && configuration.resumeGraceMs == 0 && configuration.host == "127.0.0.1")
        #expect(configuration.heartbeatTimeoutMs == ServerConfiguration().heartbeatTimeoutMs)
    }
}
