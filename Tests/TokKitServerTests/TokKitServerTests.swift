import Foundation
import Hummingbird
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

    /// Static files are still served before the JSON 404 applies (the not-found path's middleware order).
    @Test func staticFilesAreServedAndMissingOnesGetAJSONNotFound() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tokkit-static-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("hello".utf8).write(to: directory.appendingPathComponent("hello.txt"))
        try await TestServer.with({ $0.staticDirectory = directory.path }) { server in
            let file = try await server.http(.get, "/hello.txt")
            #expect(file.status == .ok && file.body == Array("hello".utf8))
            let missing = try await server.http(.get, "/missing.txt")
            #expect(missing.status == .notFound && TestServer.restError(missing.body)?.code == .invalidParameter)
        }
    }

    @Test func theConfigFileFillsOnlyTheFieldsItNames() throws {
        let json = #"{"apiKey":"k","apiSecret":"s","port":4000,"resumeGraceMs":0}"#
        let configuration = try WireCodec.decode(ServerConfiguration.self, from: Array(json.utf8))
        #expect(configuration.port == 4000 && configuration.resumeGraceMs == 0 && configuration.host == "127.0.0.1")
        #expect(configuration.heartbeatTimeoutMs == ServerConfiguration().heartbeatTimeoutMs)
    }
}
