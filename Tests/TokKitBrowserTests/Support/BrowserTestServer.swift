import Foundation
import Logging
import TokKit
import TokKitProtocol
import TokKitServer

/// A real `TokKitServer` in process on 127.0.0.1 (ephemeral port) with one quick-start session (so the page's
/// development route serves tokens for it), serving the browser client
/// plus this target's test pages (``TestPages``) from a temporary static directory.
struct BrowserTestServer {
    let server: TokKitServer
    let port: Int
    let sessionID: String
    let directory: String
    static let apiKey = "browser-test-key"
    static let apiSecret = "browser-test-secret-0123456789"

    var url: String { "http://127.0.0.1:\(port)" }

    /// - Parameter archiveRecorder: when given, the server archives (into the temporary directory) with it.
    static func start(archiveRecorder: (any ArchiveRecorderFactory)? = nil) async throws -> BrowserTestServer {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tokkit-browser-pages-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, text) in TestPages.all {
            try Data(text.utf8).write(to: URL(fileURLWithPath: directory).appendingPathComponent(name))
        }
        var configuration = ServerConfiguration(apiKey: apiKey, apiSecret: apiSecret)
        configuration.staticDirectory = directory
        if archiveRecorder != nil { configuration.archiveDirectory = "\(directory)/archives" }
        var logger = Logger(label: "test.browser.server")
        logger.logLevel = .error
        let server = try TokKitServer(configuration: configuration, logger: logger, archiveRecorder: archiveRecorder)
        let port = try await server.start()
        let session = try await server.room("browser-tests")
        return BrowserTestServer(server: server, port: port, sessionID: session.sessionID, directory: directory)
    }

    func token(data: String = "") async throws -> String {
        try await server.issueToken(sessionID: sessionID, role: .publisher, connectionData: data).token
    }

    /// `path` on this server with the session's credentials (and `extra` parameters) in the query string.
    func pageURL(_ path: String, tokens: [String: String], extra: [String: String] = [:]) -> String {
        var items = [URLQueryItem(name: "apiKey", value: Self.apiKey), URLQueryItem(name: "sessionId", value: sessionID)]
        for (name, value) in tokens.merging(extra, uniquingKeysWith: { a, _ in a }).sorted(by: { $0.key < $1.key }) {
            items.append(URLQueryItem(name: name, value: value))
        }
        var components = URLComponents()
        components.queryItems = items
        return url + path + (components.string ?? "")
    }

    /// A Swift client connected to the session, its events recorded from before connecting.
    func swiftClient() async throws -> (Session, EventLog) {
        var settings = SessionSettings()
        settings.logger.logLevel = .error
        let session = Session(apiKey: Self.apiKey, sessionID: SessionID(sessionID), serverURL: URL(string: url)!, settings: settings)
        let log = EventLog(session)
        try await session.connect(token: try await token(data: "swift"))
        return (session, log)
    }

    func stop() async {
        await server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
