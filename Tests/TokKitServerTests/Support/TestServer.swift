import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing
import TokKitProtocol
import TokKitServer

/// A real server on 127.0.0.1 with an ephemeral port, plus helpers to join it with raw clients.
struct TestServer: Sendable {
    static let apiKey = "test-key"
    static let apiSecret = "test-secret-0123456789"

    let server: TokKitServer
    let port: Int

    static func start(
        recorder: (any ArchiveRecorderFactory)? = nil, _ configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        var configuration = ServerConfiguration(apiKey: apiKey, apiSecret: apiSecret)
        configure(&configuration)
        var logger = Logger(label: "test.server")
        logger.logLevel = .warning
        let server = try TokKitServer(configuration: configuration, logger: logger, archiveRecorder: recorder)
        return TestServer(server: server, port: try await server.start())
    }

    /// Runs `body` with a started server and always stops it.
    static func with<T>(
        recorder: (any ArchiveRecorderFactory)? = nil,
        _ configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: (TestServer) async throws -> T
    ) async throws -> T {
        let test = try await start(recorder: recorder, configure)
        do {
            let result = try await body(test)
            await test.server.stop()
            return result
        } catch {
            await test.server.stop()
            throw error
        }
    }

    func session() async throws -> String {
        try await server.createSession().sessionID
    }

    func token(_ sessionID: String, role: Role = .publisher, data: String = "") async throws -> String {
        try await server.issueToken(sessionID: sessionID, role: role, connectionData: data).token
    }

    /// Opens a socket and sends `connect`; does not wait for the reply.
    func open(_ sessionID: String, token: String) async throws -> RawClient {
        let client = try await RawClient(port: port)
        client.send(.connect(.init(apiKey: Self.apiKey, sessionID: sessionID, token: token)))
        return client
    }

    /// Opens a socket, connects with a fresh token of `role` and returns the client with its `connected` reply.
    func join(_ sessionID: String, role: Role = .publisher, data: String = "", sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> (client: RawClient, connected: ServerMessage.Connected)
    {
        let client = try await open(sessionID, token: try await token(sessionID, role: role, data: data))
        guard case let .connected(connected) = await client.nextMessage(sourceLocation: sourceLocation) else {
            throw TestFailure("no connected reply")
        }
        return (client, connected)
    }

    /// Polls the server's stats until `condition` holds or `timeout` passes; returns the last stats.
    func stats(within timeout: Duration = .seconds(10), until condition: (RegistryStats) -> Bool) async
        -> RegistryStats
    {
        let deadline = ContinuousClock.now + timeout
        var stats = await server.stats()
        var polls = 0
        while !condition(stats), ContinuousClock.now < deadline, polls < 10_000 {
            polls += 1
            await Task.yield()
            try? await Task.sleep(for: .milliseconds(5))
            stats = await server.stats()
        }
        return stats
    }

    /// A REST call over a real 127.0.0.1 HTTP connection.
    func http(
        _ method: HTTPRequest.Method, _ path: String, headers: HTTPFields = [:], body: String? = nil
    ) async throws -> (status: HTTPResponse.Status, body: [UInt8]) {
        var headers = headers
        if body != nil { headers[.contentType] = "application/json" }
        let request = TestClient.Request(
            path, method: method, authority: "127.0.0.1", headers: headers, body: body.map { ByteBuffer(string: $0) })
        return try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
            let response = try await client.execute(request)
            return (response.status, response.body.map { Array($0.readableBytesView) } ?? [])
        }
    }

    /// The error body of a REST failure.
    static func restError(_ body: [UInt8]) -> RestError? {
        try? WireCodec.decode(RestError.self, from: body)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
