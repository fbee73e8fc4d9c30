import Foundation
import Logging
import TokKit
import TokKitICE
import TokKitJanus
import TokKitMedia
import TokKitNetworkLab
import TokKitProtocol
import TokKitRecordingTestSupport
import TokKitServer
import TokKitTesting

/// The benchmark's run: a lab with Janus on a host of its own, the session server and the publisher in this
/// process (on the lab's test address), and for each subscriber count a relayed round then a routed one, each
/// subscriber a child process (``SubscriberChild``) on a lab host of its own.
struct RoutedBench {
    struct Options: Sendable {
        var subscribers = [1, 2, 4, 8, 16]
        var seconds = 10
        var framesPerSecond = 15.0
        var width = 320
        var height = 240
    }

    static let apiKey = "routed-bench-key"
    static let apiSecret = "routed-bench-secret-0123456789"
    /// Pictures in the publisher's loop: 10 s at 15 fps, far above any latency.
    static let loop = 150
    /// How long subscribers may take to render their first frame.
    static let joinTimeout: Duration = .seconds(60)
    /// After every subscriber renders, before the window: the encoder's rate and the receivers' buffers settle.
    static let settle: Duration = .seconds(3)

    let options: Options
    let logger: Logger

    init(options: Options) {
        self.options = options
        var logger = Logger(label: "tokkit.routed-bench")
        logger.logLevel = .error
        self.logger = logger
    }

    /// Runs every round and returns their results in order; the lab, Janus and the server are gone when it returns.
    func run() async throws -> [RoundResult] {
        try await NetworkLab.run { lab in
            let janusHost = try await lab.addHost("janus")
            let janus = try await JanusProcess.start(
                JanusProcessConfiguration(mediaAddress: janusHost.address,
                                          launcher: ["/usr/sbin/ip", "netns", "exec", janusHost.namespace],
                                          port: 8188, startTimeout: .seconds(30)),
                logger: logger)
            var configuration = ServerConfiguration(apiKey: Self.apiKey, apiSecret: Self.apiSecret)
            configuration.host = lab.testAddress
            configuration.emptySessionTimeoutMs = 300
            configuration.janus = [RoutedMediaConfiguration(url: janus.url, apiSecret: janus.configuration.apiSecret,
                                                            adminKey: janus.configuration.videoRoomAdminKey)]
            let server: TokKitServer
            let port: Int
            do {
                server = try TokKitServer(configuration: configuration, logger: logger)
                port = try await server.start()
            } catch {
                await janus.stop(grace: .seconds(1))
                throw error
            }
            var results: [RoundResult] = []
            do {
                var hosts: [LabHost] = []
                for count in options.subscribers {
                    while hosts.count < count { hosts.append(try await lab.addHost("sub\(hosts.count)")) }
                    for mode in [MediaMode.relayed, .routed] {
                        let result = try await round(mode: mode, hosts: Array(hosts.prefix(count)), lab: lab,
                                                     server: server, port: port, janus: janus)
                        results.append(result)
                        ResultTable.print([result], header: results.count == 1, goal: false)
                        fflush(nil)  // the rows so far, also when stdout is a file
                    }
                }
            } catch {
                print("routed-bench: \(error)\njanus log tail:\n\(janus.logTail(30))")
                await server.stop()
                await janus.stop(grace: .seconds(1))
                throw error
            }
            await server.stop()
            await janus.stop(grace: .seconds(2))
            return results
        }
    }

    /// One round: a session in `mode`, the publisher, one subscriber per host; measures one window.
    func round(mode: MediaMode, hosts: [LabHost], lab: NetworkLab, server: TokKitServer, port: Int,
               janus: JanusProcess) async throws -> RoundResult {
        let origin = "http://\(lab.testAddress):\(port)"
        let sessionID = try await server.createSession(mediaMode: mode).sessionID
        var settings = SessionSettings()
        settings.logger.logLevel = .error
        let session = Session(apiKey: Self.apiKey, sessionID: SessionID(sessionID), serverURL: URL(string: origin)!,
                              settings: settings)
        session.mediaNegotiator = WebRTCNegotiator(
            ice: ICEConfiguration(localAddresses: [lab.testAddress], includesLoopback: false))
        try await session.connect(token: try await server.issueToken(sessionID: sessionID, role: .publisher).token)
        precondition(options.width >= 64 && Self.loop <= StampReader.maximumNumber(sourceWidth: options.width))
        let log = CaptureLog(capacity: Int(options.framesPerSecond * Double(options.seconds + 180)))
        let capturer = NumberedPatternCapturer(width: options.width, height: options.height,
                                               framesPerSecond: options.framesPerSecond, loop: Self.loop) { tick in
            let now = MonotonicClock.now()
            log.record(tick: tick, at: now)
            return (tick, now)
        }
        let publisher = Publisher(name: "routed-bench", videoCapture: capturer)
        var children: [LabProcess] = []
        func cleanUp() async {
            for child in children { child.closeInput() }
            for child in children { await child.stop(grace: .seconds(6)) }
            try? await session.unpublish(publisher)
            await session.disconnect()
        }
        do {
            try await session.publish(publisher)
            let me = try Built.path("routed-bench")
            for host in hosts {
                let token = try await server.issueToken(sessionID: sessionID, role: .subscriber).token
                children.append(try lab.spawn(on: host, [me, "--subscriber", origin, Self.apiKey, sessionID, token,
                                                         "\(options.width)", "\(options.height)"]))
            }
            // Every subscriber renders (or the join timeout passes).
            let deadline = ContinuousClock.now + Self.joinTimeout
            while ContinuousClock.now < deadline,
                  !children.allSatisfy({ child in child.lines.contains { $0.hasPrefix("first ") } || !child.isRunning }) {
                try await Task.sleep(for: .milliseconds(100))
            }
            try await Task.sleep(for: Self.settle)

            let cpu0 = ProcessCPU.own(), janus0 = ProcessCPU.of(janus.pid) ?? 0
            let bytes0 = Self.uploadBytes(publisher), frames0 = capturer.framesDelivered
            let t0 = MonotonicClock.now()
            try await Task.sleep(for: .seconds(options.seconds))
            let cpu1 = ProcessCPU.own(), janus1 = ProcessCPU.of(janus.pid) ?? 0
            let bytes1 = Self.uploadBytes(publisher), frames1 = capturer.framesDelivered
            let t1 = MonotonicClock.now()
            // Frames rendered up to t1 are reported within 250 ms.
            try await Task.sleep(for: .milliseconds(600))

            let wall = Double((t1 - t0).nanoseconds) / 1e9
            var latencies: [Double] = [], joins: [Double] = [], rendered = 0, silent = 0
            for child in children {
                let lines = child.lines
                let joining = lines.first { $0.hasPrefix("joining ") }.flatMap { Int64($0.dropFirst(8)) }
                let first = lines.first { $0.hasPrefix("first ") }.flatMap { Int64($0.dropFirst(6)) }
                guard let joining, let first else {
                    silent += 1
                    let failure = lines.first { $0.hasPrefix("failed") } ?? child.stderrTail
                    print("  (\(mode.rawValue), \(hosts.count)) a subscriber rendered nothing: \(failure)")
                    continue
                }
                joins.append(Double(first - joining) / 1e6)
                for line in lines where line.hasPrefix("frames ") {
                    for pair in line.dropFirst(7).split(separator: " ") {
                        let parts = pair.split(separator: ":")
                        guard parts.count == 2, let number = Int(parts[0]), let ns = Int64(parts[1]) else { continue }
                        let at = Duration.nanoseconds(ns)
                        guard at >= t0, at < t1 else { continue }
                        rendered += 1
                        if let captured = log.captureTime(of: number, loop: Self.loop, renderedAt: at) {
                            latencies.append(Double((at - captured).nanoseconds) / 1e6)
                        }
                    }
                }
            }
            await cleanUp()
            let captured = max(frames1 - frames0, 1)
            return RoundResult(
                mode: mode, subscribers: hosts.count, publisherCPU: 100 * (cpu1 - cpu0) / wall,
                uploadKbps: Double(bytes1 &- bytes0) * 8 / wall / 1_000, janusCPU: 100 * (janus1 - janus0) / wall,
                latencies: latencies.sorted(), joins: joins.sorted(), silent: silent,
                renderedRatio: Double(rendered) / Double(captured * hosts.count))
        } catch {
            await cleanUp()
            throw error
        }
    }

    /// Audio and video bytes the publisher sent, over its peer connections (one per subscriber relayed, one to the
    /// media router routed).
    static func uploadBytes(_ publisher: Publisher) -> UInt64 {
        publisher.statistics.subscriptions.reduce(0) { $0 + $1.videoTrack.bytesSent + $1.audioTrack.bytesSent }
    }
}
