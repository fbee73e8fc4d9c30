import Foundation
import Logging
import Testing
import TokKit
import TokKitAudio
import TokKitProtocol
import TokKitTesting

@testable import TokKitArchiving
@testable import TokKitServer

/// The composed archiver joins a real session through a real server, decodes every stream, and writes one WebM:
/// the streams' pictures in a grid at 640x480, their audio mixed; ffprobe and ffmpeg read it back.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ComposedArchiverTests {
    @Test func recordsTwoPublishersInOneGridThatFollowsThem() async throws {
        // Both publishers run in this process and so share its audio device: they send the same 440 Hz tone.
        // (Two distinct tones mixed are checked on the composer alone, ArchiveComposerTests.)
        _ = try? AudioDeviceManager.setAudioDevice(ToneAudioDevice(frequency: 440))
        var configuration = ServerConfiguration(apiKey: "composed-test", apiSecret: "composed-secret-\(UInt64.random(in: 0...UInt64.max))")
        configuration.host = "127.0.0.1"
        var quiet = Logger(label: "composed-test")
        quiet.logLevel = .error
        let server = try TokKitServer(configuration: configuration, logger: quiet)
        let url = try #require(URL(string: "http://127.0.0.1:\(try await server.start())"))
        defer { Task { await server.stop() } }
        let sessionID = try await server.createSession().sessionID
        func member() async throws -> Session {
            var settings = SessionSettings()
            settings.logger = quiet
            let session = Session(apiKey: "composed-test", sessionID: SessionID(sessionID), serverURL: url, settings: settings)
            session.mediaNegotiator = WebRTCNegotiator(ice: .loopback)
            try await session.connect(token: try await server.issueToken(sessionID: sessionID).token)
            return session
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("composed-\(UUID().uuidString).webm").path
        defer { try? FileManager.default.removeItem(atPath: path) }

        // Red is published before the archive starts; blue joins 1.5 s in; red leaves 2 s later; 1.5 s more.
        let first = try await member()
        let red = Publisher(name: "red", videoCapture: ColourCapturer(width: 320, height: 240, colour: .red))
        try await first.publish(red)
        let archiver = try await ComposedArchiver.start(
            serverURL: url, apiKey: "composed-test", sessionID: SessionID(sessionID),
            token: try server.authority.issueHidden(sessionID: sessionID, now: WallClock.seconds()).token,
            path: path, settings: ComposedArchiveSettings(width: 640, height: 480, framesPerSecond: 15),
            ice: .loopback, logger: quiet)
        try await Task.sleep(for: .milliseconds(1500))
        let second = try await member()
        let blue = Publisher(name: "blue", videoCapture: ColourCapturer(width: 320, height: 240, colour: .blue))
        try await second.publish(blue)
        try await Task.sleep(for: .seconds(2))
        let redID = try #require(red.stream?.streamID), blueID = try #require(blue.stream?.streamID)
        try await first.unpublish(red)
        try await Task.sleep(for: .milliseconds(1500))
        let result = await archiver.stop()
        await first.disconnect()
        await second.disconnect()

        #expect(result.failure == nil, "\(result.failure ?? "")")
        #expect(result.streams.map(\.streamID) == [redID, blueID])
        try #require(result.streams.count == 2)
        let (redSpan, blueSpan) = (result.streams[0], result.streams[1])
        #expect(redSpan.joined < .milliseconds(500) && blueSpan.joined > .milliseconds(1400), "\(result.streams)")
        let redLeft = try #require(redSpan.left, "red left before the stop")
        #expect(redLeft > .milliseconds(3400) && blueSpan.left == nil, "\(result.streams)")
        #expect(redSpan.framesDecoded > 45 && blueSpan.framesDecoded > 45, "\(result.streams)")
        let seconds = Double(result.duration.components.seconds) + Double(result.duration.components.attoseconds) * 1e-18
        #expect((4.5...7.0).contains(seconds), "duration \(result.duration)")
        #expect(result.videoFrames > 50 && result.audioPackets > 200, "\(result.videoFrames) frames, \(result.audioPackets) packets")

        // The layout: red alone, red and blue side by side from blue's first picture, blue alone once red left.
        #expect(result.layoutChanges.map(\.streams) == [[redID], [redID, blueID], [blueID]], "\(result.layoutChanges)")
        try #require(result.layoutChanges.count == 3)
        func at(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18 }
        let (both, blueAlone) = (at(result.layoutChanges[1].at), at(result.layoutChanges[2].at))
        #expect(both > 1.4 && both < 2.6 && blueAlone > at(redLeft) - 0.1 && blueAlone < at(redLeft) + 0.3,
                "layout changes at \(both) s and \(blueAlone) s; red left at \(redLeft)")

        let probe = try Probe.streams(path)
        #expect(probe.codecs.sorted() == ["opus", "vp8"], "\(probe)")
        #expect(probe.width == 640 && probe.height == 480)
        #expect(abs(probe.duration - seconds) < 0.3, "\(probe) against \(seconds) s")
        #expect(try Probe.decodeErrors(path).isEmpty)

        // Frames before and after each change: red fills the canvas, then red left and blue right (each 320x240
        // centred in its 320x480 half), then blue fills it.
        let before = try DecodedArchive.picture(path, at: both - 0.3, width: 640, height: 480)
        for (x, y) in [(320, 240), (100, 400), (540, 100)] {
            #expect(before.colour(x: x, y: y).isClose(to: .red), "before blue at \(x),\(y): \(before.colour(x: x, y: y))")
        }
        let middle = try DecodedArchive.picture(path, at: (both + blueAlone) / 2, width: 640, height: 480)
        #expect(middle.colour(x: 160, y: 240).isClose(to: .red), "left half: \(middle.colour(x: 160, y: 240))")
        #expect(middle.colour(x: 480, y: 240).isClose(to: .blue), "right half: \(middle.colour(x: 480, y: 240))")
        #expect(middle.colour(x: 160, y: 40).isClose(to: .black) && middle.colour(x: 480, y: 440).isClose(to: .black),
                "letterbox: \(middle.colour(x: 160, y: 40)) \(middle.colour(x: 480, y: 440))")
        let after = try DecodedArchive.picture(path, at: min(blueAlone + 0.5, seconds - 0.2), width: 640, height: 480)
        for (x, y) in [(320, 240), (100, 400), (540, 100)] {
            #expect(after.colour(x: x, y: y).isClose(to: .blue), "after red left at \(x),\(y): \(after.colour(x: x, y: y))")
        }

        // The tone is heard from each publisher in the mix (where one alone is heard: the same tone from two
        // publishers may cancel out, depending on their phases).
        let audio = try DecodedArchive.audio(path)
        let redAlone = DecodedArchive.amplitude(of: 440, in: audio, from: 0.6, to: min(both, 1.4))
        let blueHeard = DecodedArchive.amplitude(of: 440, in: audio, from: blueAlone + 0.2, to: seconds - 0.1)
        let silence = DecodedArchive.amplitude(of: 1_000, in: audio, from: 0.6, to: seconds - 0.1)
        #expect(redAlone > 2_000 && blueHeard > 2_000 && silence < 300, "440 Hz \(redAlone) then \(blueHeard); 1 kHz \(silence)")
        #expect(await archiver.stop() == result, "a second stop returns the same result")
    }

    @Test func badSettingsThrowBeforeJoining() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("composed-\(UUID().uuidString).webm").path
        await #expect(throws: ComposedArchiveError.invalidSettings("resolution 100x480 (even, 160...1920 x 120...1080)")) {
            _ = try await ComposedArchiver.start(serverURL: URL(string: "http://127.0.0.1:9")!, apiKey: "k", sessionID: SessionID("s"),
                                                 token: "t", path: path, settings: ComposedArchiveSettings(width: 100))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
