import FoundationEssentials
import Logging
import Testing
@_spi(Testing) import TokKit
import TokKitProtocol
import TokKitServer

/// A real `TokKitServer`, in process, on 127.0.0.1 with an ephemeral port, and one session on it.
struct TestServer {
    let server: TokKitServer
    let port: Int
    let sessionID: String
    static let apiKey = "test-key"
    static let apiSecret = "test-secret-0123456789"

    var url: String { "http://127.0.0.1:\(port)" }

    static func start(
        heartbeatIntervalMs: Int = 5_000, heartbeatTimeoutMs: Int = 15_000, resumeGraceMs: Int = 20_000,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        var configuration = ServerConfiguration(apiKey: apiKey, apiSecret: apiSecret)
        configuration.heartbeatIntervalMs = heartbeatIntervalMs
        configuration.heartbeatTimeoutMs = heartbeatTimeoutMs
        configuration.resumeGraceMs = resumeGraceMs
        configure(&configuration)
        var logger = Logger(label: "test.server")
        logger.logLevel = .error
        let server = try TokKitServer(configuration: configuration, logger: logger)
        let port = try await server.start()
        let session = try await server.createSession()
        return TestServer(server: server, port: port, sessionID: session.sessionID)
    }

    func token(role: Role = .publisher, data: String = "") async throws -> String {
        try await server.issueToken(sessionID: sessionID, role: role, connectionData: data).token
    }

    /// A client session for this server's session (not connected yet). Signaling-only (a
    /// `PlaceholderNegotiator`) unless `media` is true (the default `WebRTCNegotiator`, on loopback).
    func session(url: String? = nil, settings: SessionSettings = .quiet, media: Bool = false) -> Session {
        let s = Session(apiKey: Self.apiKey, sessionID: SessionID(sessionID), serverURL: URL(string: url ?? self.url)!, settings: settings)
        if !media { s.mediaNegotiator = PlaceholderNegotiator() }
        return s
    }

    /// A session connected with a token of `role`, with a recorder attached before connecting.
    func connected(role: Role = .publisher, data: String = "", url: String? = nil, settings: SessionSettings = .quiet,
                   media: Bool = false) async throws -> (Session, EventRecorder)
    {
        let s = session(url: url, settings: settings, media: media)
        let recorder = EventRecorder(s)
        try await s.connect(token: try await token(role: role, data: data))
        return (s, recorder)
    }

    func stop() async { await server.stop() }
}

extension SessionSettings {
    /// Defaults, with logging limited to errors.
    static var quiet: SessionSettings {
        var s = SessionSettings()
        s.logger.logLevel = .error
        return s
    }
}
