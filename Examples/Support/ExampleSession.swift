// Shared by the tutorial examples: where the session comes from, and how long to run.
//
// Every example takes the same options:
//   --server URL   join the session of a running server's tutorial service (GET /session), e.g. a tokkit-server
//                  started with --quick-start
//   --seconds N    how long to keep media flowing before leaving (default 5)
// Without --server the example starts a TokKitServer in its own process on 127.0.0.1, so it runs with nothing
// else running; open the printed URL in a browser to join the same session from there. That embedded server records
// archives (Docs/Archiving.md) into <temporary directory>/tokkit-example-archives.
import Foundation
import FoundationNetworking
import Logging
import TokKit
import TokKitArchiving
import TokKitServer

/// A connected session for an example, with the embedded server it may have started.
public struct ExampleSession: Sendable {
    public let session: Session
    /// The server the session belongs to (embedded or given).
    public let serverURL: URL
    public let sessionID: SessionID
    private let embedded: TokKitServer?

    /// Parses `--server` / `--seconds`, starts an embedded server when no `--server` is given, fetches credentials
    /// from the server's tutorial service and connects.
    public static func connect(name: String, arguments: [String] = CommandLine.arguments) async throws -> ExampleSession {
        var embedded: TokKitServer?
        let base: String
        if let given = option("--server", in: arguments) {
            base = given
        } else {
            var configuration = ServerConfiguration(
                apiKey: "example", apiSecret: "example-secret-\(UInt64.random(in: 0...UInt64.max))")
            configuration.quickStart = true
            configuration.archiveDirectory =
                FileManager.default.temporaryDirectory.appendingPathComponent("tokkit-example-archives").path
            var logger = Logger(label: "example.server")
            logger.logLevel = .warning
            let server = try TokKitServer(configuration: configuration, logger: logger,
                                          archiveRecorder: ServerArchiveRecorder(logger: logger))
            base = "http://127.0.0.1:\(try await server.start())"
            embedded = server
            print("* server running at \(base) (a browser can join at \(base)/)")
        }
        guard let serverURL = URL(string: base) else { throw ExampleError("bad server URL \(base)") }
        let credentials = try await TutorialCredentials.fetch(from: base)
        var settings = SessionSettings()
        settings.logger.logLevel = .warning
        let sessionID = SessionID(credentials.sessionID)
        let session = Session(apiKey: credentials.apiKey, sessionID: sessionID, serverURL: serverURL, settings: settings)
        try await session.connect(token: credentials.token)
        print("* \(name) connected to session \(credentials.sessionID) as \(session.connection?.connectionID ?? "?")")
        return ExampleSession(session: session, serverURL: serverURL, sessionID: sessionID, embedded: embedded)
    }

    /// Disconnects and stops the embedded server, if any.
    public func close() async {
        await session.disconnect()
        await embedded?.stop()
    }

    /// The lines of `--help` that describe the options every session example takes (see the top of this file).
    public static let optionsHelp = """
          --server URL   join the session of a running server's tutorial service (GET /session), e.g. a
                         tokkit-server started with --quick-start; without it the example starts a server in its
                         own process on 127.0.0.1 and prints its URL (a browser can join there)
          --seconds N    how long to keep media flowing before leaving, 1-3600 (default 5)
          -h, --help     print this help and exit
        """

    /// The `--seconds` option (1...3600, default 5).
    public static func seconds(_ arguments: [String] = CommandLine.arguments) -> Int {
        min(max(Int(option("--seconds", in: arguments) ?? "") ?? 5, 1), 3_600)
    }

    /// The value after `name` in `arguments`, if any.
    public static func option(_ name: String, in arguments: [String] = CommandLine.arguments) -> String? {
        guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
        return arguments[i + 1]
    }

    /// Connects as `name`, runs `body`, then disconnects and stops the embedded server. Any error is printed and
    /// ends the process with status 1.
    public static func run(_ name: String, _ body: (ExampleSession) async throws -> Void) async {
        do {
            let example = try await connect(name: name)
            do {
                try await body(example)
            } catch {
                await example.close()
                throw error
            }
            await example.close()
        } catch {
            print("\(name): \(error)")
            exit(1)
        }
    }

    /// The stream an example subscribes to: alone (embedded server), the one `publisher` publishes, the SDK's way
    /// of testing a setup with one participant; joining a server, the first stream of somebody else.
    public func streamToSubscribe(besides publisher: Publisher) async throws -> SessionStream {
        if embedded != nil {
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                if let own = publisher.stream { return own }
                try await Task.sleep(for: .milliseconds(10))
            }
            throw ExampleError("our own stream was not created within 10 s")
        }
        let me = session.connection?.connectionID
        return try await waitForStream(timeout: .seconds(60)) { $0.connection.connectionID != me }
    }

    /// Waits until `session` knows a stream matching `predicate`, for at most `timeout`.
    public func waitForStream(timeout: Duration = .seconds(10),
                              where predicate: (SessionStream) -> Bool) async throws -> SessionStream {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let stream = session.streams.values.first(where: predicate) { return stream }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw ExampleError("no matching stream within \(timeout)")
    }
}

/// What an example reports when it cannot go on.
public struct ExampleError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The tutorial web service's answer (`GET /session`), as in the OpenTok tutorials' sample server.
public struct TutorialCredentials: Decodable, Sendable {
    public var apiKey: String
    public var sessionID: String
    public var token: String

    /// The JSON names of `GET /session` (Docs/Protocol.md), not the Swift ones.
    enum CodingKeys: String, CodingKey { case apiKey, sessionID = "sessionId", token }

    /// Asks the server at `base` (e.g. `http://127.0.0.1:8080`) for a session and a publisher token.
    public static func fetch(from base: String) async throws -> TutorialCredentials {
        guard let url = URL(string: base.hasSuffix("/") ? base + "session" : base + "/session") else {
            throw ExampleError("bad server URL \(base)")
        }
        let (data, response) = try await URLSession.shared.data(from: url)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw ExampleError("\(url) answered \(String(decoding: data, as: UTF8.self))")
        }
        return try JSONDecoder().decode(TutorialCredentials.self, from: data)
    }
}
