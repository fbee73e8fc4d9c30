import Foundation
import Logging
import Synchronization
import Testing
import TokKitICE
import TokKitJanus
import TokKitNetworkLab
import TokKitPeer

/// A real Janus (Debian's 1.1.2) in a network-lab host: Janus gathers no ICE candidate on loopback, so it runs on
/// a veth address the test process reaches (198.18.0.0/15).
enum JanusLab {
    static let ip = "/usr/sbin/ip"

    static var logger: Logger {
        var logger = Logger(label: "tokkit.janus.tests")
        logger.logLevel = .warning
        return logger
    }

    /// Starts Janus in a new host of `lab`. A missing `janus` fails the test (``JanusError/notInstalled(_:)``).
    static func start(in lab: NetworkLab, label: String = "janus", sessionTimeout: Int = 60)
        async throws -> (LabHost, JanusProcess) {
        let host = try await lab.addHost(label)
        let configuration = JanusProcessConfiguration(
            mediaAddress: host.address, launcher: [ip, "netns", "exec", host.namespace], port: 8188,
            sessionTimeout: sessionTimeout, startTimeout: .seconds(30))
        let janus = try await JanusProcess.start(configuration, logger: logger)
        return (host, janus)
    }

    /// Runs `body` with a lab and a Janus in one of its hosts; stops Janus and closes the lab whatever happens
    /// (printing Janus's log tail if `body` threw).
    static func run(sessionTimeout: Int = 60,
                    _ body: (NetworkLab, LabHost, JanusProcess) async throws -> Void) async throws {
        try await NetworkLab.run { lab in
            let (host, janus) = try await start(in: lab, sessionTimeout: sessionTimeout)
            do {
                try await body(lab, host, janus)
            } catch {
                print("janus log tail:\n\(janus.logTail(60))")
                await janus.stop(grace: .seconds(1))
                throw error
            }
            await janus.stop(grace: .seconds(2))
        }
    }

    /// A peer connection in the test process, gathering on its lab address only.
    static func peer(_ lab: NetworkLab, publishing: Bool) throws -> PeerConnection {
        let ice = ICEConfiguration(localAddresses: [lab.testAddress], includesLoopback: false)
        let configuration = publishing
            ? PeerConfiguration(ice: ice, receivesAudio: false, receivesVideo: false)
            : PeerConfiguration(ice: ice, audioSSRC: nil, videoSSRC: nil, receivesAudio: true, receivesVideo: true)
        return try PeerConnection(configuration: configuration)
    }

    /// Forwards `peer`'s trickled candidates (and their end) to `handle` until the peer's events end.
    static func trickle(_ peer: PeerConnection, to handle: JanusHandle) -> Task<Void, Never> {
        Task {
            for await event in peer.events {
                switch event {
                case .localCandidate(let candidate):
                    try? await handle.trickle(candidate: candidate, sdpMid: "0", sdpMLineIndex: 0)
                case .gatheringComplete:
                    try? await handle.trickleCompleted()
                default:
                    break
                }
            }
        }
    }
}

/// Runs `body`, failing with `what` if it takes longer than `timeout`.
func within<T: Sendable>(_ timeout: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T)
    async throws -> T {
    try await withThrowingTaskGroup(of: Outcome<T>.self) { group in
        group.addTask { .value(try await body()) }
        group.addTask {
            try await Task.sleep(for: timeout)
            return .timedOut
        }
        defer { group.cancelAll() }
        guard case .value(let value)? = try await group.next() else { throw TimedOut(what: what, timeout: timeout) }
        return value
    }
}

enum Outcome<T: Sendable>: Sendable {
    case value(T)
    case timedOut
}

struct TimedOut: Error, CustomStringConvertible {
    let what: String
    let timeout: Duration
    var description: String { "timed out after \(timeout): \(what)" }
}

/// Reads `events` until one matches, at most `timeout` (the events before it are consumed).
func firstEvent(_ events: VideoRoomEvents, _ what: String, timeout: Duration = .seconds(10),
                where match: @escaping @Sendable (VideoRoomEvent) -> Bool) async throws -> VideoRoomEvent {
    try await within(timeout, what) {
        for await event in events where match(event) { return event }
        throw TimedOut(what: "\(what) (stream ended)", timeout: timeout)
    }
}

/// Polls `condition` every 20 ms for at most `timeout`.
func poll(_ timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}

/// The kernel's one-letter state of process `pid` (`R`, `S`, `T` stopped, `Z`...; /proc/PID/stat), nil if it is gone.
func processState(_ pid: Int32) -> Character? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return nil }
    return stat[stat.index(after: close)...].first { $0 != " " }
}

/// Whether `condition` becomes true within `timeout`, checked every 20 ms.
func pollUntil(_ timeout: Duration, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
}
