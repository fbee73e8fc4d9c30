import Foundation
import Logging
import Testing
import TokKit
import TokKitProtocol

@testable import TokKitArchiving
@testable import TokKitServer

/// An embedded server recording archives for real (the ServerArchiveRecorder on loopback, a temporary archive
/// directory), one session on it, and members joining that session: what the archive tests drive through the
/// server's own archive API.
final class ArchiveTestServer: Sendable {
    let server: TokKitServer
    let url: URL
    let sessionID: String
    let directory: String
    let apiKey = "archive-test"
    let logger: Logger

    init() async throws {
        var quiet = Logger(label: "archive-service-test")
        quiet.logLevel = .error
        logger = quiet
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("archives-\(UUID().uuidString)").path
        var configuration = ServerConfiguration(apiKey: apiKey, apiSecret: "archive-secret-\(UInt64.random(in: 0...UInt64.max))")
        configuration.archiveDirectory = directory
        server = try TokKitServer(configuration: configuration, logger: quiet,
                                  archiveRecorder: ServerArchiveRecorder(ice: .loopback, logger: quiet))
        url = try #require(URL(string: "http://127.0.0.1:\(try await server.start())"))
        sessionID = try await server.createSession().sessionID
    }

    /// A member connected to the session (loopback ICE).
    func member() async throws -> Session {
        var settings = SessionSettings()
        settings.logger = logger
        let session = Session(apiKey: apiKey, sessionID: SessionID(sessionID), serverURL: url, settings: settings)
        session.mediaNegotiator = WebRTCNegotiator(ice: .loopback)
        try await session.connect(token: try await server.issueToken(sessionID: sessionID).token)
        return session
    }

    /// Records the session for `seconds` through the archive API and waits until the archive settled: the
    /// recording runs from when `start` returned to when `stop` is called, `seconds` later by this process's clock.
    func record(_ mode: ArchiveOutputMode, seconds: Double, resolution: String = "640x480") async throws -> ArchiveRecord {
        let asked = ContinuousClock.now
        let started = try await server.archives.start(ArchiveOptions(
            sessionID: sessionID, name: "quality", outputMode: mode, resolution: resolution))
        let begin = ContinuousClock.now
        try await Task.sleep(until: begin + .seconds(seconds), clock: .continuous)
        let stopping = ContinuousClock.now
        let stopped = try await server.archives.stop(started.id)
        let answered = ContinuousClock.now
        await server.archives.settled(started.id)
        print("archive \(mode): start took \(begin - asked), stop asked \(stopping - begin) after start, answered \(answered - stopping) later (recorded \(stopped.duration) s by the service), settled \(ContinuousClock.now - stopping) later")
        return try await server.archives.archive(started.id)
    }

    /// Where a file of `archive` is.
    func path(_ archive: ArchiveRecord, _ file: String) -> String { "\(directory)/\(archive.id)/\(file)" }

    /// Removes the archive directory (stop the server first).
    func removeDirectory() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}
