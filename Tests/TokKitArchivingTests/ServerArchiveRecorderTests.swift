import Foundation
import Logging
import Synchronization
import Testing
import TokKit
import TokKitAudio
import TokKitProtocol
import TokKitTesting

@testable import TokKitArchiving
@testable import TokKitServer

/// The whole archive path for real: a server with an archive directory and the SessionArchiver-based recorder, a
/// real publishing Session, real members hearing the events; the archive becomes available and ffprobe and ffmpeg
/// read its file.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ServerArchiveRecorderTests {
    /// What a member's event stream said about archives, in order.
    final class ArchiveEvents: Sendable {
        final class Log: Sendable {
            let lines = Mutex<[String]>([])
        }

        private let log = Log()
        private let task: Task<Void, Never>

        init(_ events: AsyncStream<SessionEvent>) {
            let log = log
            task = Task {
                for await event in events {
                    switch event {
                    case let .archiveStarted(id, name): log.lines.withLock { $0.append("started \(id.rawValue) \(name)") }
                    case let .archiveStopped(id): log.lines.withLock { $0.append("stopped \(id.rawValue)") }
                    default: break
                    }
                }
            }
        }

        deinit { task.cancel() }

        /// The events once `count` arrived (at most 10 s).
        func wait(for count: Int) async -> [String] {
            for _ in 0..<200 {
                let now = log.lines.withLock { $0 }
                if now.count >= count { return now }
                try? await Task.sleep(for: .milliseconds(50))
            }
            return log.lines.withLock { $0 }
        }
    }

    @Test func aRecordingStartedOnTheServerBecomesAPlayableArchive() async throws {
        _ = try? AudioDeviceManager.setAudioDevice(ToneAudioDevice())
        var quiet = Logger(label: "archive-service-test")
        quiet.logLevel = .error
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("archives-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = ServerConfiguration(apiKey: "archive-test", apiSecret: "archive-secret-\(UInt64.random(in: 0...UInt64.max))")
        configuration.archiveDirectory = directory
        let server = try TokKitServer(configuration: configuration, logger: quiet,
                                      archiveRecorder: ServerArchiveRecorder(ice: .loopback, logger: quiet))
        let url = try #require(URL(string: "http://127.0.0.1:\(try await server.start())"))
        let sessionID = try await server.createSession().sessionID
        func member() async throws -> (Session, ArchiveEvents) {
            var settings = SessionSettings()
            settings.logger = quiet
            let session = Session(apiKey: "archive-test", sessionID: SessionID(sessionID), serverURL: url, settings: settings)
            session.mediaNegotiator = WebRTCNegotiator(ice: .loopback)
            let events = ArchiveEvents(session.events)
            try await session.connect(token: try await server.issueToken(sessionID: sessionID).token)
            return (session, events)
        }

        let (publishing, publisherEvents) = try await member()
        let publisher = Publisher(name: "cam", videoCapture: PatternCapturer(width: 320, height: 240, framesPerSecond: 30))
        try await publishing.publish(publisher)
        let started = try await server.archives.start(ArchiveOptions(sessionID: sessionID, name: "chapter"))
        #expect(started.status == .started)
        #expect(server.limiter.held(by: "127.0.0.1") == 1, "the publisher only: the recorder showed its credential")
        #expect(await publisherEvents.wait(for: 1) == ["started \(started.id) chapter"])
        let (late, lateEvents) = try await member()
        #expect(await lateEvents.wait(for: 1) == ["started \(started.id) chapter"], "a member joining while it records hears of it")
        // The late member's connect returns with the members already there; the publishing one hears of it a
        // moment later, possibly after the late one heard of the recording.
        #expect(late.connections.map(\.connectionID) == [publishing.connection?.connectionID],
                "the late member sees the publishing one, not the recorder")
        let lateID = late.connection?.connectionID
        #expect(await eventually { publishing.connections.map(\.connectionID) == [lateID] },
                "the publishing member sees the late one, not the recorder")

        let publishedID = try #require(publisher.stream?.streamID.rawValue)
        try await Task.sleep(for: .seconds(3))
        let stopped = try await server.archives.stop(started.id)
        #expect(stopped.status == .stopped && (2.5...4.5).contains(stopped.duration), "\(stopped.duration)")
        #expect(await publisherEvents.wait(for: 2).last == "stopped \(started.id)")
        #expect(await lateEvents.wait(for: 2).last == "stopped \(started.id)")
        await server.archives.settled(started.id)
        let archive = try await server.archives.archive(started.id)
        await late.disconnect()
        await publishing.disconnect()
        await server.stop()

        #expect(archive.status == .available, "\(archive.reason ?? "")")
        let stream = try #require(archive.streams.first)
        #expect(archive.streams.count == 1 && stream.streamID == publishedID)
        #expect(try #require(stream.startOffset) < 1_500)
        let path = "\(directory)/\(started.id)/\(stream.file)"
        let size = try #require(FileManager.default.contents(atPath: path)).count
        #expect(Int64(size) == stream.size && archive.size == stream.size && size > 10_000)
        let probed = try Probe.streams(path)
        #expect(probed.codecs.sorted() == ["opus", "vp8"] && probed.width == 320 && probed.height == 240, "\(probed)")
        #expect((1.5...4.0).contains(probed.duration), "about 3 s recorded: \(probed.duration)")
        let errors = try Probe.decodeErrors(path)
        #expect(errors.isEmpty, "ffmpeg: \(errors)")
    }

    /// Composed mode through the real server: one file at the asked resolution (not the publisher's), one VP8 track
    /// and one Opus track, listed under the name "composed", its duration the file's.
    @Test func aComposedRecordingBecomesOneFileAtTheAskedResolution() async throws {
        _ = try? AudioDeviceManager.setAudioDevice(ToneAudioDevice())
        var quiet = Logger(label: "archive-service-test")
        quiet.logLevel = .error
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("archives-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = ServerConfiguration(apiKey: "archive-test", apiSecret: "archive-secret-\(UInt64.random(in: 0...UInt64.max))")
        configuration.archiveDirectory = directory
        let server = try TokKitServer(configuration: configuration, logger: quiet,
                                      archiveRecorder: ServerArchiveRecorder(ice: .loopback, logger: quiet))
        let url = try #require(URL(string: "http://127.0.0.1:\(try await server.start())"))
        let sessionID = try await server.createSession().sessionID
        var settings = SessionSettings()
        settings.logger = quiet
        let publishing = Session(apiKey: "archive-test", sessionID: SessionID(sessionID), serverURL: url, settings: settings)
        publishing.mediaNegotiator = WebRTCNegotiator(ice: .loopback)
        let events = ArchiveEvents(publishing.events)
        try await publishing.connect(token: try await server.issueToken(sessionID: sessionID).token)
        let publisher = Publisher(name: "cam", videoCapture: PatternCapturer(width: 320, height: 240, framesPerSecond: 30))
        try await publishing.publish(publisher)

        let started = try await server.archives.start(ArchiveOptions(
            sessionID: sessionID, name: "composed", outputMode: .composed, resolution: "480x640"))
        #expect(started.status == .started && started.outputMode == .composed && started.resolution == "480x640")
        #expect(await events.wait(for: 1) == ["started \(started.id) composed"])
        try await Task.sleep(for: .seconds(3))
        let stopped = try await server.archives.stop(started.id)
        #expect(stopped.status == .stopped)
        #expect(await events.wait(for: 2).last == "stopped \(started.id)")
        await server.archives.settled(started.id)
        let archive = try await server.archives.archive(started.id)
        await publishing.disconnect()
        await server.stop()

        #expect(archive.status == .available, "\(archive.reason ?? "")")
        let file = try #require(archive.streams.first)
        #expect(archive.streams.count == 1 && file.streamID == ServerArchiveRecorder.composedStreamName
                && file.file == ServerArchiveRecorder.composedFileName && file.startOffset == 0, "\(archive.streams)")
        let path = "\(directory)/\(started.id)/\(file.file)"
        let size = try #require(FileManager.default.contents(atPath: path)).count
        #expect(Int64(size) == file.size && archive.size == file.size && size > 10_000)
        let probed = try Probe.streams(path)
        #expect(probed.codecs.sorted() == ["opus", "vp8"] && probed.width == 480 && probed.height == 640, "\(probed)")
        #expect((2.0...4.5).contains(probed.duration), "about 3 s recorded: \(probed.duration)")
        #expect(abs(archive.duration - probed.duration) < 0.5, "the record's duration is the file's: \(archive.duration) vs \(probed.duration)")
        let errors = try Probe.decodeErrors(path)
        #expect(errors.isEmpty, "ffmpeg: \(errors)")
    }
}
