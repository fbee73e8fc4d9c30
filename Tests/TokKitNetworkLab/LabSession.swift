import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Executables built next to the test bundle (`swift build --build-tests` builds them).
public enum Built {
    public struct Missing: Error, CustomStringConvertible {
        public var name: String
        public var description: String { "\(name) is not built next to the tests: run `swift build --build-tests`" }
    }

    public static func path(_ name: String) throws -> String {
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let candidate = me.deletingLastPathComponent().appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: candidate) else { throw Missing(name: name) }
        return candidate
    }
}

/// `tokkit-server` running in a lab host on port 8080, optionally handing out the lab's STUN and TURN servers.
public struct LabSessionServer: Sendable {
    public static let port = 8080
    public let host: LabHost
    public let process: LabProcess
    public var url: String { "http://\(host.address):\(Self.port)" }

    public struct Credentials: Decodable, Sendable {
        public var apiKey: String
        public var sessionID: String
        public var token: String

        enum CodingKeys: String, CodingKey {
            case apiKey
            case sessionID = "sessionId"
            case token
        }
    }

    /// Starts the server on `host` with quick start on (the lab's peers and pages get their credentials from
    /// `GET /room/{name}`), with `stun`/`turn` URLs and the TURN secret when given; waits until it listens.
    public static func start(_ lab: NetworkLab, on host: LabHost, stun: [String] = [], turn: [String] = [],
                      turnSecret: String? = nil, staticDirectory: String? = nil) async throws -> LabSessionServer {
        var argv = [try Built.path("tokkit-server"), "--host", host.address, "--port", String(port),
                    "--api-key", "lab", "--api-secret", "tokkit-lab-secret-0123456789", "--log-level", "warning",
                    "--quick-start", "--janus-mode", "none"]  // relayed sessions only: no embedded Janus per lab host
        for url in stun { argv += ["--stun", url] }
        for url in turn { argv += ["--turn", url] }
        if let turnSecret { argv += ["--turn-secret", turnSecret] }
        if let staticDirectory { argv += ["--static-dir", staticDirectory] }
        let process = try lab.spawn(on: host, argv)
        _ = try await process.waitForLine(timeout: .seconds(20), "tokkit-server listening") {
            $0.contains("tokkit-server listening")
        }
        return LabSessionServer(host: host, process: process)
    }

    /// Publisher credentials for `room` (the quick-start route), fetched from the test process over the lab.
    public func credentials(room: String = "lab") async throws -> Credentials {
        let (data, _) = try await URLSession.shared.data(from: URL(string: "\(url)/room/\(room)")!)
        return try JSONDecoder().decode(Credentials.self, from: data)
    }
}

/// `tokkit-lab-peer` in a lab host: joins the session, publishes a pattern and a tone, subscribes to every other
/// stream and reports what it receives (see Tests/TokKitLabPeer/main.swift).
public struct LabPeer: Sendable {
    /// One line of its output.
    public struct Line: Decodable, Sendable {
        public var event: String
        public var stream: String?
        public var frames: Int?
        public var patternFrames: Int?
        public var psnr: Double?
        public var audioPackets: Int?
        public var heardPeak: Int?
        public var pair: String?
        public var local: String?
        public var remote: String?
        public var localAddress: String?
        public var remoteAddress: String?
        /// The size of the last frame decoded (stats lines).
        public var width: Int?
        public var height: Int?
        /// The width a routed subscription's downlink limits it to (0: not limited).
        public var limitWidth: Int?
        public var videoLost: Int?
        public var nacksSent: Int?
        public var videoBytes: Int?
        public var bitrate: Int?
        public var freezeCount: Int?
        public var freezeSeconds: Double?
        /// The video playout delay at the time of the line.
        public var playoutDelayMs: Double?
        /// Stats lines: key frames the subscriber asked for; publisher lines: requests the encoder answered (peers',
        /// a new peer's, re-enabling).
        public var keyframeRequests: Int?
        public var framesDropped: Int?
        public var framesSeconds: Double?
        public var audioDecoded: Int?
        public var audioConcealed: Int?
        /// Missing audio packets recovered by Opus in-band FEC or RFC 2198 redundancy (not concealment).
        public var audioRecovered: Int?
        /// Of those, the ones decoded from a RED packet's redundant block.
        public var audioRecoveredRED: Int?
        /// 20 ms intervals the audio was held to follow the video (lip sync), the extra audio delay, and the video's
        /// last measured lag behind the audio without it (-1000: none measured yet).
        public var audioHeld: Int?
        public var syncDelayMs: Double?
        public var syncLagMs: Double?
        /// Milliseconds since the peer started, when the line was made.
        public var t: Double?
        public var encoderBitrate: Int?
        /// VP8 bytes encoded (and sent) so far, as the browser page's `videoBytesSent`.
        public var videoBytesSent: Int?
        public var targetBitrate: Int?
        /// Publisher lines: frames not encoded because the send queue was behind (the frame dropper), and frames
        /// the encoder made.
        public var framesSkipped: Int?
        public var framesEncoded: Int?
        /// Publisher lines: key frames made for repairs refused on an overloaded path
        /// (`VideoSendStatistics.keyframesForDeclinedRepairs`).
        public var declinedRepairKeyframes: Int?
        /// Publisher lines: the size the encoder makes (smaller than the configured one on a slow path).
        public var encodedWidth: Int?
        public var encodedHeight: Int?
        public var localPort: Int?
        public var remotePort: Int?
        public var code: Int?
        public var message: String?
    }

    public let host: LabHost
    public let process: LabProcess

    public static func join(_ lab: NetworkLab, on host: LabHost, server: LabSessionServer, name: String,
                     options: [String] = []) async throws -> LabPeer {
        let credentials = try await server.credentials()
        let process = try lab.spawn(on: host, [
            try Built.path("tokkit-lab-peer"), "--server", server.url, "--api-key", credentials.apiKey,
            "--session", credentials.sessionID, "--token", credentials.token, "--name", name, "--seconds", "150",
        ] + options)
        return LabPeer(host: host, process: process)
    }

    public var lines: [Line] {
        process.lines.compactMap { try? JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
    }

    /// Waits until it has rendered `frames` pattern frames of one stream and heard another party's tone (with
    /// `pattern` false: any `frames` frames and some audio packets, as from a browser's fake camera); returns that
    /// `stats` line. Throws with its output on a failure line or at the timeout.
    public func waitForMedia(frames: Int = 30, pattern: Bool = true, timeout: Duration = .seconds(40)) async throws -> Line {
        var heard = false
        let found = try await process.waitForLine(timeout: timeout, "\(host.label): \(frames) frames and a tone") {
            guard let line = try? JSONDecoder().decode(Line.self, from: Data($0.utf8)) else { return false }
            if line.event == "subscriberFailed" || line.event == "error" || line.event == "publisherFailed" {
                return true
            }
            guard line.event == "stats" else { return false }
            guard pattern else { return (line.frames ?? 0) >= frames && (line.audioPackets ?? 0) > 0 }
            heard = heard || (line.heardPeak ?? 0) > 2_000
            return heard && (line.patternFrames ?? 0) >= frames
        }
        let line = try JSONDecoder().decode(Line.self, from: Data(found.utf8))
        guard line.event == "stats" else { throw PeerFailed(host: host.label, line: found, output: process.lines) }
        return line
    }

    /// The newest `stats` line.
    public var lastStats: Line? { lines.last { $0.event == "stats" } }

    /// Closes its stdin and waits for it to leave the session; returns its exit status.
    public func leave() async -> Int32? {
        process.closeInput()
        return await process.waitForExit(timeout: .seconds(15))
    }

    public struct PeerFailed: Error, CustomStringConvertible {
        public var host: String
        public var line: String
        public var output: [String]
        public var description: String { "\(host): \(line)\n" + output.suffix(20).joined(separator: "\n") }
    }
}
