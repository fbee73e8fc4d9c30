import Foundation
import Logging
import Synchronization
import Testing
import TokKit
import TokKitArchivingTestSupport
import TokKitAudio
import TokKitProtocol
import TokKitTesting

@testable import TokKitArchiving
@testable import TokKitServer

/// The composed archiver joins a real session through a real server, decodes every stream, and writes one WebM:
/// the streams' pictures in a grid at 640x480, their audio mixed; ffprobe and ffmpeg read it back.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ComposedArchiverTests {
    /// An executable built next to the test bundle.
    static func helper(_ name: String) -> String? {
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let candidate = me.deletingLastPathComponent().appendingPathComponent(name).path
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }

    @Test func recordsTwoPublishersInOneGridThatFollowsThem() async throws {
        // The red publisher runs here with a 440 Hz tone; the blue one in a process of its own (a process has one
        // audio device) with a 1 kHz tone.
        let helper = try #require(Self.helper("tokkit-archive-test-publisher"),
                                  "tokkit-archive-test-publisher is not built next to the tests: run `swift build --build-tests`")
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

        // Red is published before the archive starts; blue joins 1.5 s in; red leaves 3 s later; 1.5 s more.
        let first = try await member()
        let red = Publisher(name: "red", videoCapture: ColourCapturer(width: 320, height: 240, colour: DecodedArchive.YUV.red.bytes))
        try await first.publish(red)
        let archiver = try await ComposedArchiver.start(
            serverURL: url, apiKey: "composed-test", sessionID: SessionID(sessionID),
            token: try server.authority.issueHidden(sessionID: sessionID, now: WallClock.seconds()).token,
            path: path, settings: ComposedArchiveSettings(width: 640, height: 480, framesPerSecond: 15),
            ice: .loopback, logger: quiet)
        try await Task.sleep(for: .milliseconds(1500))
        let blueProcess = Process()
        blueProcess.executableURL = URL(fileURLWithPath: helper)
        let blueColour = DecodedArchive.YUV.blue
        blueProcess.arguments = [url.absoluteString, "composed-test", sessionID, try await server.issueToken(sessionID: sessionID).token,
                                 "1000", "\(blueColour.y)", "\(blueColour.u)", "\(blueColour.v)", "30"]
        blueProcess.standardOutput = FileHandle.nullDevice
        try blueProcess.run()
        defer {
            if blueProcess.isRunning { blueProcess.terminate() }
            blueProcess.waitUntilExit()
        }
        try await Task.sleep(for: .seconds(3))
        let redID = try #require(red.stream?.streamID)
        try await first.unpublish(red)
        try await Task.sleep(for: .milliseconds(1500))
        let result = await archiver.stop()
        await first.disconnect()
        #expect(blueProcess.isRunning, "the blue publisher was there until the stop")

        #expect(result.failure == nil, "\(result.failure ?? "")")
        try #require(result.streams.count == 2, "\(result.streams)")
        let blueID = result.streams[1].streamID
        #expect(result.streams[0].streamID == redID && blueID != redID)
        let (redSpan, blueSpan) = (result.streams[0], result.streams[1])
        #expect(redSpan.joined < .milliseconds(500) && blueSpan.joined > .milliseconds(1400), "\(result.streams)")
        let redLeft = try #require(redSpan.left, "red left before the stop")
        #expect(redLeft > .milliseconds(4400) && blueSpan.left == nil, "\(result.streams)")
        #expect(redSpan.framesDecoded > 45 && blueSpan.framesDecoded > 45, "\(result.streams)")
        let seconds = Double(result.duration.components.seconds) + Double(result.duration.components.attoseconds) * 1e-18
        #expect((5.5...8.5).contains(seconds), "duration \(result.duration)")
        #expect(result.videoFrames > 50 && result.audioPackets > 200, "\(result.videoFrames) frames, \(result.audioPackets) packets")

        // The layout: red alone, red and blue side by side from blue's first picture, blue alone once red left.
        #expect(result.layoutChanges.map(\.streams) == [[redID], [redID, blueID], [blueID]], "\(result.layoutChanges)")
        try #require(result.layoutChanges.count == 3)
        func at(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18 }
        let (both, blueAlone) = (at(result.layoutChanges[1].at), at(result.layoutChanges[2].at))
        #expect(both > 1.4 && both < 4.0 && blueAlone > at(redLeft) - 0.1 && blueAlone < at(redLeft) + 0.3,
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

        // Each publisher's tone is in the mix exactly while it is there: red's 440 Hz, blue's 1 kHz, both at once
        // while both are published. Heard: loud (amplitude over 2000 of the 8000 sent) in most 200 ms windows (on
        // this loaded machine a publisher's capture or its packets are sometimes late, and the mix has a gap);
        // absent: under 300 over the whole span.
        let audio = try DecodedArchive.audio(path)
        func level(_ f: Double, _ from: Double, _ to: Double) -> Double { DecodedArchive.amplitude(of: f, in: audio, from: from, to: to) }
        func heard(_ f: Double, _ from: Double, _ to: Double) -> Double {
            let windows = stride(from: from, to: to - 0.2, by: 0.2).map { level(f, $0, $0 + 0.2) }
            return windows.isEmpty ? 0 : Double(windows.filter { $0 > 2_000 }.count) / Double(windows.count)
        }
        let redOnly = (heard(440, 0.6, min(both, 1.6)), level(1_000, 0.6, min(both, 1.6)))
        let mixed = (heard(440, both + 0.3, at(redLeft) - 0.1), heard(1_000, both + 0.3, at(redLeft) - 0.1))
        let blueOnly = (level(440, blueAlone + 0.2, seconds - 0.1), heard(1_000, blueAlone + 0.2, seconds - 0.1))
        #expect(redOnly.0 >= 0.6 && redOnly.1 < 300, "red alone: 440 Hz in \(redOnly.0) of the time, 1 kHz level \(redOnly.1)")
        #expect(mixed.0 >= 0.6 && mixed.1 >= 0.6, "both: 440 Hz in \(mixed.0), 1 kHz in \(mixed.1) of the time")
        #expect(blueOnly.0 < 300 && blueOnly.1 >= 0.6, "blue alone: 440 Hz level \(blueOnly.0), 1 kHz in \(blueOnly.1) of the time")
        #expect(await archiver.stop() == result, "a second stop returns the same result")
    }

    /// Streams coming and going over one recording: each ended stream's input (decoders, jitter buffer, picture) is
    /// released, counted by live inputs, while the result still lists every stream with its span.
    @Test func endedStreamsReleaseTheirDecoders() async throws {
        var configuration = ServerConfiguration(apiKey: "composed-test", apiSecret: "composed-secret-\(UInt64.random(in: 0...UInt64.max))")
        configuration.host = "127.0.0.1"
        var quiet = Logger(label: "composed-test")
        quiet.logLevel = .error
        let server = try TokKitServer(configuration: configuration, logger: quiet)
        let url = try #require(URL(string: "http://127.0.0.1:\(try await server.start())"))
        defer { Task { await server.stop() } }
        let sessionID = try await server.createSession().sessionID
        var settings = SessionSettings()
        settings.logger = quiet
        let member = Session(apiKey: "composed-test", sessionID: SessionID(sessionID), serverURL: url, settings: settings)
        member.mediaNegotiator = WebRTCNegotiator(ice: .loopback)
        try await member.connect(token: try await server.issueToken(sessionID: sessionID).token)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("composed-\(UUID().uuidString).webm").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let archiver = try await ComposedArchiver.start(
            serverURL: url, apiKey: "composed-test", sessionID: SessionID(sessionID),
            token: try server.authority.issueHidden(sessionID: sessionID, now: WallClock.seconds()).token,
            path: path, settings: ComposedArchiveSettings(width: 320, height: 240, framesPerSecond: 10, hasAudio: false),
            ice: .loopback, logger: quiet)

        /// Polls `condition` every 20 ms, at most 10 s.
        func eventually(_ condition: () -> Bool) async -> Bool {
            for _ in 0..<500 {
                if condition() { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return condition()
        }
        let cycles = 12
        for cycle in 0..<cycles {
            let publisher = Publisher(name: "cycle \(cycle)", publishAudio: false,
                                      videoCapture: ColourCapturer(width: 160, height: 120, colour: DecodedArchive.YUV.red.bytes))
            try await member.publish(publisher)
            try #require(await eventually { archiver.liveStreamCount == 1 }, "cycle \(cycle): recorded")
            try await member.unpublish(publisher)
            try #require(await eventually { archiver.liveStreamCount == 0 }, "cycle \(cycle): ended")
        }
        let released = await eventually { archiver.liveInputs == 0 }
        #expect(released, "\(archiver.liveInputs) inputs of ended streams still alive")
        let result = await archiver.stop()
        await member.disconnect()
        #expect(result.failure == nil, "\(result.failure ?? "")")
        #expect(result.streams.count == cycles && result.streams.allSatisfy { $0.left != nil }, "\(result.streams)")
    }

    @Test func badSettingsThrowBeforeJoining() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("composed-\(UUID().uuidString).webm").path
        await #expect(throws: ComposedArchiveError.invalidSettings("resolution 100x480 (even; long side 160...1920, short side 120...1080)")) {
            _ = try await ComposedArchiver.start(serverURL: URL(string: "http://127.0.0.1:9")!, apiKey: "k", sessionID: SessionID("s"),
                                                 token: "t", path: path, settings: ComposedArchiveSettings(width: 100))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
