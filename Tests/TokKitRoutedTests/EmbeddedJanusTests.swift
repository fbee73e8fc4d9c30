import Foundation
import Logging
import Testing
import TokKit
import TokKitJanus
import TokKitNetworkLab
import TokKitProtocol
import TokKitServer
import TokKitTesting

/// The embedded deployment (issue 15): a `TokKitServer` whose configuration has `embeddedJanus` starts a real Janus
/// 1.1.2 as its own child process, drives it for its routed sessions, restarts it when it dies and stops it with
/// itself. Inside `unshare -n` (as scripts/test runs it) there is only `lo`, which Janus ignores: the test process
/// gets a lab address (198.18.0.2, `NetworkLab`) that Janus uses for media and the clients gather on.
@Suite("Embedded Janus", .serialized) struct EmbeddedJanusTests {
    /// Two Swift clients in a routed session on a server with an embedded Janus: the subscriber decodes the
    /// publisher's frames through Janus; the server holds one publisher and one subscriber handle there.
    @Test func anEmbeddedJanusCarriesARoutedSession() async throws {
        try await EmbeddedLab.run { lab, server in
            let status = try #require(server.embeddedJanusStatus())
            #expect(status.state == .running && status.pid != nil, "\(status)")
            #expect(status.mediaAddress == lab.testAddress && status.url.hasPrefix("ws://127.0.0.1:"), "\(status)")
            let (alice, bob, _, _, renderer) = try await EmbeddedLab.call(server, lab)
            let flowing = await eventually(timeout: .seconds(20)) { renderer.frames >= 30 }
            #expect(flowing, "frames decoded through the embedded Janus: \(renderer.frames)")
            let routed = await server.routedMediaStatus()
            #expect(routed?.publishers == 1 && routed?.subscribers == 1, "\(String(describing: routed))")
            await bob.disconnect()
            await alice.disconnect()
        }
    }

    /// The embedded Janus killed (SIGKILL) mid-session: the routed stream's publisher and subscriber get 1570, the
    /// supervisor starts Janus again (a new process, its old files gone), and a new publish and subscribe carry
    /// media through the new Janus.
    @Test func aKilledEmbeddedJanusIsRestartedAndCarriesNewStreams() async throws {
        try await EmbeddedLab.run { lab, server in
            let first = try #require(server.embeddedJanusStatus())
            let pid = try #require(first.pid)
            let folder = try #require(first.configurationDirectory)
            let (alice, bob, publisher, subscriber, renderer) = try await EmbeddedLab.call(server, lab)
            let publisherFailure = RoutedLab.firstFailure(publisher.events)
            let subscriberFailure = RoutedLab.firstFailure(subscriber.events)
            #expect(await eventually(timeout: .seconds(20)) { renderer.frames > 0 })

            let killed = ContinuousClock.now
            kill(pid, SIGKILL)
            let lost = try #require(try await RoutedLab.within(.seconds(10), "publisher failure") { await publisherFailure.value })
            #expect(lost.code == ErrorCode.mediaRouterFailed.rawValue, "\(lost)")
            let dropped = try #require(try await RoutedLab.within(.seconds(10), "subscriber failure") { await subscriberFailure.value })
            #expect(dropped.code == ErrorCode.mediaRouterFailed.rawValue, "\(dropped)")
            let restarted = await eventually(timeout: .seconds(20)) {
                let s = server.embeddedJanusStatus()
                return s?.state == .running && s?.restarts == 1 && s?.pid != nil && s?.pid != pid
            }
            let second = try #require(server.embeddedJanusStatus())
            #expect(restarted, "\(second)")
            print("embedded janus: killed to running again in \(ContinuousClock.now - killed)")
            #expect(second.lastExitStatus == SIGKILL, "\(second)")
            #expect(!FileManager.default.fileExists(atPath: folder), "the dead Janus's generated files are gone")
            let newPID = try #require(second.pid)
            #expect(EmbeddedLab.janusChildren() == [newPID], "one janus child: the new one")

            // A new stream through the restarted Janus.
            let again = Publisher(name: "again", videoCapture: PatternCapturer(width: 160, height: 120))
            try await alice.publish(again)
            let streamID = try #require(again.stream?.streamID)
            #expect(await eventually { bob.streams[streamID] != nil })
            let counter = CountingRenderer()
            try await bob.subscribe(Subscriber(stream: try #require(bob.streams[streamID]), videoRender: counter))
            let flowing = await eventually(timeout: .seconds(20)) { counter.frames >= 10 }
            #expect(flowing, "frames through the restarted Janus: \(counter.frames)")
            await bob.disconnect()
            await alice.disconnect()
        }
    }

    /// `stop()` leaves no Janus process (no child of the test process named janus, the pid gone) and no generated
    /// configuration folder.
    @Test func stopLeavesNoJanusAndNoFiles() async throws {
        try await NetworkLab.run { lab in
            let server = try EmbeddedLab.server(lab)
            _ = try await server.start()
            let status = try #require(server.embeddedJanusStatus())
            let pid = try #require(status.pid)
            let folder = try #require(status.configurationDirectory)
            #expect(FileManager.default.fileExists(atPath: folder + "/janus.jcfg"))
            #expect(EmbeddedLab.janusChildren() == [pid])
            // A routed session made the server talk to it (a room), so stop() has something to take down first.
            let sessionID = try await server.createSession(mediaMode: .routed).sessionID
            let alice = try await RoutedLab.connect(server, sessionID, lab)
            try await alice.publish(Publisher(name: "p", videoCapture: PatternCapturer(width: 160, height: 120)))
            #expect(await eventually { await server.routedMediaStatus()?.rooms.count == 1 })
            await alice.disconnect()
            await server.stop()
            #expect(server.embeddedJanusStatus()?.state == .stopped)
            #expect(kill(pid, 0) == -1 && errno == ESRCH, "janus \(pid) is gone")
            #expect(EmbeddedLab.janusChildren().isEmpty)
            #expect(!FileManager.default.fileExists(atPath: folder), "\(folder) is removed")
        }
    }

    /// A missing executable and a "Janus" that never answers: `start()` throws a typed error (no hang, bounded by
    /// the start timeout) and leaves no process behind; a loopback media address is refused when the server is
    /// made; without a non-loopback interface there is no default address.
    @Test func aJanusThatCannotStartIsATypedError() async throws {
        #expect(EmbeddedJanusSettings.defaultMediaAddress() == nil, "only lo outside the lab")
        try await NetworkLab.run { lab in
            #expect(EmbeddedJanusSettings.defaultMediaAddress() == lab.testAddress)
            let missing = try EmbeddedLab.server(lab) { $0.executable = "/nonexistent/janus" }
            await #expect(throws: TokKitServerError.embeddedJanus(.notInstalled("/nonexistent/janus"))) {
                _ = try await missing.start()
            }
            #expect(missing.port == nil && missing.embeddedJanusStatus()?.state == .idle)

            let mute = FileManager.default.temporaryDirectory.appendingPathComponent("mute-janus-\(getpid())").path
            try "#!/bin/sh\nexec sleep 60\n".write(toFile: mute, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: mute)
            defer { try? FileManager.default.removeItem(atPath: mute) }
            let silent = try EmbeddedLab.server(lab) {
                $0.executable = mute
                $0.startTimeoutMs = 1_000
            }
            let began = ContinuousClock.now
            do throws(TokKitServerError) {
                _ = try await silent.start()
                Issue.record("a Janus that never answers started")
                await silent.stop()
            } catch {
                guard case .embeddedJanus(.processFailed(_, let log)) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(log.contains("no answer"), "\(log)")
            }
            print("embedded janus: a mute janus refused after \(ContinuousClock.now - began)")
            #expect(ContinuousClock.now - began < .seconds(10), "bounded by the start timeout (1 s) and the kill")
            #expect(!EmbeddedLab.children().values.contains("sleep"), "nothing left running: \(EmbeddedLab.children())")
        }
        var loopback = ServerConfiguration(apiKey: RoutedLab.apiKey, apiSecret: RoutedLab.apiSecret)
        loopback.embeddedJanus = EmbeddedJanusSettings(mediaAddress: "127.0.0.1")
        let refused = #expect(throws: TokKitServerError.self) { _ = try TokKitServer(configuration: loopback) }
        if case .embeddedJanus(.invalidConfiguration)? = refused {} else { Issue.record("loopback: \(String(describing: refused))") }
        var noAddress = ServerConfiguration(apiKey: RoutedLab.apiKey, apiSecret: RoutedLab.apiSecret)
        noAddress.embeddedJanus = EmbeddedJanusSettings()
        let unaddressed = #expect(throws: TokKitServerError.self) { _ = try TokKitServer(configuration: noAddress) }
        if case .configuration(let message)? = unaddressed, message.contains("non-loopback") {} else {
            Issue.record("no address: \(String(describing: unaddressed))")
        }
    }
}

/// A server with an embedded Janus whose media address is the test process's lab address.
enum EmbeddedLab {
    static func server(_ lab: NetworkLab, _ adjust: (inout EmbeddedJanusSettings) -> Void = { _ in }) throws
        -> TokKitServer {
        var configuration = ServerConfiguration(apiKey: RoutedLab.apiKey, apiSecret: RoutedLab.apiSecret)
        configuration.emptySessionTimeoutMs = 300
        var settings = EmbeddedJanusSettings(mediaAddress: lab.testAddress)
        settings.startTimeoutMs = 30_000
        settings.restartBackoffMs = 100
        adjust(&settings)
        configuration.embeddedJanus = settings
        return try TokKitServer(configuration: configuration, logger: RoutedLab.logger)
    }

    /// Runs `body` with a started server; stops it whatever happens.
    static func run(_ body: (NetworkLab, TokKitServer) async throws -> Void) async throws {
        try await NetworkLab.run { lab in
            let server = try server(lab)
            _ = try await server.start()
            do {
                try await body(lab, server)
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
        }
    }

    /// Alice publishes a pattern in a new routed session, Bob subscribes to it (``RoutedLab/call``).
    static func call(_ server: TokKitServer, _ lab: NetworkLab) async throws
        -> (Session, Session, Publisher, Subscriber, CountingRenderer) {
        try await RoutedLab.call(server, try await server.createSession(mediaMode: .routed).sessionID, lab)
    }

    /// The test process's live child processes: pid → command name (from /proc).
    static func children() -> [Int32: String] {
        let me = getpid()
        var found: [Int32: String] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, fields[0] != "Z", Int32(fields[1]) == me else { continue }
            found[pid] = String(stat[stat.index(after: open)..<close])
        }
        return found
    }

    /// The pids of the test process's children named janus.
    static func janusChildren() -> [Int32] {
        children().filter { $0.value == "janus" }.map(\.key).sorted()
    }
}
