import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import Testing
import TokKit
import TokKitAudio
import TokKitTesting

/// Issue 16's restart acceptance with the real binary: `tokkit-server --archive-directory` records a publishing
/// Session, is killed with SIGKILL about 5 s in, and a new server on the same directory lists the archive as
/// recovered, its file served and decoding without an error up to the kill.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ServerRestartTests {
    static let apiKey = "restart-test"
    static let apiSecret = "restart-secret-0123456789"

    /// A product built next to the test bundle (`swift build --build-tests`), or nil.
    static func helper(_ name: String) -> String? {
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        for directory in [me.deletingLastPathComponent(), me.deletingLastPathComponent().deletingLastPathComponent()] {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Starts `tokkit-server` on a free port; the process and its port (from the line it prints once listening).
    static func launch(_ executable: String, archives: String) throws -> (Process, Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--port", "0", "--api-key", apiKey, "--api-secret", apiSecret,
                             "--archive-directory", archives, "--log-level", "error"]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var text = ""
        let reader = output.fileHandleForReading
        while !text.contains("\n") {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let match = text.firstMatch(of: /listening on http:\/\/127\.0\.0\.1:(\d+)/), let port = Int(match.output.1) else {
            process.terminate()
            throw TestError("tokkit-server did not say where it listens: \(text)")
        }
        return (process, port)
    }

    struct TestError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// An admin REST call (partner credentials); the JSON object it answers.
    static func call(_ method: String, _ url: String, body: String? = nil) async throws -> [String: Any] {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        request.setValue("\(apiKey):\(apiSecret)", forHTTPHeaderField: "X-TB-PARTNER-AUTH")
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, _) = try await URLSession.shared.data(for: request)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(String(decoding: data, as: UTF8.self))")
    }

    @Test func anArchiveRecordingWhenTheServerIsKilledIsListedAndPlayableAfterARestart() async throws {
        let executable = try #require(Self.helper("tokkit-server"), "tokkit-server is not built: run `swift build --build-tests`")
        _ = try? AudioDeviceManager.setAudioDevice(ToneAudioDevice())
        let archives = FileManager.default.temporaryDirectory.appendingPathComponent("restart-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: archives) }

        let (first, port) = try Self.launch(executable, archives: archives)
        defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }
        let base = "http://127.0.0.1:\(port)"
        let sessionID = try #require(try await Self.call("POST", "\(base)/session/create")["sessionId"] as? String)
        let token = try #require(
            try await Self.call("POST", "\(base)/v2/project/\(Self.apiKey)/session/\(sessionID)/token")["token"] as? String)
        var settings = SessionSettings()
        settings.logger.logLevel = .error
        let session = Session(apiKey: Self.apiKey, sessionID: SessionID(sessionID), serverURL: try #require(URL(string: base)),
                              settings: settings)
        session.mediaNegotiator = WebRTCNegotiator(ice: .loopback)
        try await session.connect(token: token)
        try await session.publish(Publisher(name: "cam", videoCapture: PatternCapturer(width: 320, height: 240, framesPerSecond: 30)))
        let started = try await Self.call("POST", "\(base)/v2/project/\(Self.apiKey)/archive",
                                          body: #"{"sessionId":"\#(sessionID)","name":"killed"}"#)
        let id = try #require(started["id"] as? String, "\(started)")
        try await Task.sleep(for: .seconds(5))
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        #expect(first.terminationReason == .uncaughtSignal)
        await session.disconnect()

        let (second, secondPort) = try Self.launch(executable, archives: archives)
        defer { kill(second.processIdentifier, SIGTERM); second.waitUntilExit() }
        let record = try await Self.call("GET", "http://127.0.0.1:\(secondPort)/v2/project/\(Self.apiKey)/archive/\(id)")
        #expect(record["status"] as? String == "available" && record["reason"] as? String == "recovered after a server restart",
                "\(record)")
        let duration = try #require(record["duration"] as? Double)
        // From the start to the file's last write (its last finished cluster): 4.3 s seen here for a kill at 5 s.
        #expect((3.0...6.0).contains(duration), "from the start to the last write, about 4-5 s: \(duration)")
        let streams = try #require(record["streams"] as? [[String: Any]])
        let file = try #require(streams.first?["file"] as? String)
        #expect(streams.count == 1)
        let path = "\(archives)/\(id)/\(file)"
        let frames = Int(try Probe.run("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                             "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        // 5 s at 30 fps from the first key frame, less the cluster unfinished at the kill (at most about 1 s): 4-5 s
        // on a quiet machine; the bar is looser below for a loaded one (the first key frame comes later).
        #expect((90...155).contains(frames), "about 4-5 s of video decodes: \(frames) frames")
        let errors = try Probe.decodeErrors(path)
        #expect(errors.isEmpty, "ffmpeg: \(errors)")
        print("killed server: archive recovered with duration \(duration) s, \(frames) video frames decodable of about 5 s")
    }
}
