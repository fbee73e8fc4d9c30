import Foundation
import Logging
import Testing
import TokKit
import TokKitArchiving
import TokKitChromiumSupport
import TokKitTesting

@testable import TokKitServer

/// The archive view page (`GET /view/{archiveId}`) in headless Chromium, on an archive really recorded: a Swift
/// client publishes a 320x240 pattern and a tone, the server's `ServerArchiveRecorder` records it for a few seconds,
/// then Chromium opens the page and plays its `<video>`: time advances, the picture has the recorded size, the
/// duration is the archive's, a seek lands where asked and plays on from there, and the file came with range
/// answers (206).
@Suite(.serialized, .timeLimit(.minutes(3))) struct ArchiveViewPageTests {
    /// How long each archive records.
    static let recording = Duration.seconds(5)

    @Test func individualArchivePlaysAtTheRecordedSizeAndSeeks() async throws {
        try await Self.recordAndPlay(ArchiveOptions(sessionID: "", name: "individual"), width: 320, height: 240)
    }

    @Test func composedArchivePlaysAtItsResolutionAndSeeks() async throws {
        try await Self.recordAndPlay(
            ArchiveOptions(sessionID: "", name: "composed", outputMode: .composed, resolution: "640x480"),
            width: 640, height: 480)
    }

    /// Records `options` (its session replaced by the test server's) and plays its one file in the view page.
    static func recordAndPlay(_ options: ArchiveOptions, width: Int, height: Int) async throws {
        try await BrowserMediaInteropTests.useTone()
        var quiet = Logger(label: "test.browser.archive-view")
        quiet.logLevel = .error
        let server = try await BrowserTestServer.start(
            archiveRecorder: ServerArchiveRecorder(ice: .loopback, logger: quiet))
        defer { Task { await server.stop() } }
        let (swift, _) = try await server.swiftClient()
        try await swift.publish(Publisher(name: "pattern", videoCapture: PatternCapturer(width: 320, height: 240,
                                                                                         framesPerSecond: 30)))
        var options = options
        options.sessionID = server.sessionID
        let started = try await server.server.archives.start(options)
        try await Task.sleep(for: recording)
        _ = try await server.server.archives.stop(started.id)
        await server.server.archives.settled(started.id)
        let archive = try await server.server.archives.archive(started.id)
        await swift.disconnect()
        try #require(archive.status == .available && archive.streams.count == 1,
                     "\(archive.status) \(archive.reason ?? "") \(archive.streams)")
        let size = try #require(archive.streams.first?.size)

        let chromium = try await BrowserPage.open("\(server.url)/view/\(archive.id)")
        let player = ArchivePlayer(page: chromium.page)
        do {
            try await play(player, archive: archive, size: size, width: width, height: height)
        } catch {
            Issue.record("\(error); console: \(chromium.console); stderr: \(chromium.stderrTail)")
        }
        await chromium.close()
    }

    static func play(_ player: ArchivePlayer, archive: ArchiveRecord, size: Int64, width: Int, height: Int)
        async throws
    {
        try await player.start()
        let playing = try await player.waitUntil(timeout: .seconds(20)) { $0.currentTime > 1.2 }
        #expect(playing.error == nil && !playing.paused, "\(playing)")
        #expect(playing.videoWidth == width && playing.videoHeight == height, "\(playing)")
        #expect(playing.duration.isFinite && abs(playing.duration - archive.duration) < 0.5,
                "the file's duration (\(playing.duration) s) is the archive's (\(archive.duration) s)")

        // Seek ahead of where playback is, then it plays on from there.
        let target = (archive.duration - 1.5).rounded(.down)
        try #require(target > playing.currentTime + 0.5, "too short to seek ahead: \(playing), \(archive.duration) s")
        let landed = try await player.seek(to: target)
        #expect(abs(landed - target) < 0.3, "asked \(target), at \(landed)")
        let after = try await player.waitUntil(timeout: .seconds(20)) { $0.currentTime > target + 0.5 }
        #expect(after.error == nil && after.currentTime < archive.duration + 0.5, "\(after)")

        // Chromium fetched the file with range requests (its first request asks `bytes=0-`) and got 206.
        let statuses = try await player.mediaResponseStatuses()
        #expect(!statuses.isEmpty && statuses.allSatisfy { $0 == 206 }, "media responses: \(statuses)")
        let part = try await player.fetchRange(100...199)
        #expect(part == ArchivePlayer.RangeReply(status: 206, contentRange: "bytes 100-199/\(size)", bytes: 100),
                "\(part)")
    }
}
