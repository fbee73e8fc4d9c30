import Foundation
import Logging
import Synchronization
import Testing
import TokKit
import TokKitJanus
import TokKitNetworkLab
import TokKitProtocol
import TokKitServer
import TokKitTesting

/// Several Janus instances (issue 15): routed sessions placed on the least loaded one, and moved to another when
/// theirs is killed, their media coming back without the app doing anything. Two real Janus 1.1.2 in two lab
/// hosts, a real `TokKitServer` given both. Run inside `unshare -n`, as scripts/test does.
@Suite("Routed sessions over several Janus instances", .serialized) struct RoutedFailoverTests {
    /// Two routed sessions, each with a publisher and a subscriber: they land on different instances (each holding
    /// one room), and media flows through both.
    @Test func sessionsSpreadOverTwoInstances() async throws {
        try await RoutedLab.runTwo { lab, janus, server in
            var calls: [(Session, Session, Publisher, Subscriber, CountingRenderer)] = []
            var sessionIDs: [String] = []
            for _ in 0..<2 {
                let sessionID = try await server.createSession(mediaMode: .routed).sessionID
                sessionIDs.append(sessionID)
                calls.append(try await RoutedLab.call(server, sessionID, lab))
            }
            let status = try #require(await server.routedMediaStatus())
            let placed = sessionIDs.compactMap { status.placements[$0] }
            #expect(Set(placed) == [0, 1], "one session per instance: \(status)")
            #expect(status.instancesConnected == [true, true], "\(status)")
            #expect(status.rooms.count == 2 && status.publishers == 2 && status.subscribers == 2, "\(status)")
            // Each instance's Janus holds the room of the session placed there.
            for (sessionID, index) in zip(sessionIDs, placed) {
                let room = try #require(status.rooms[sessionID])
                let watcher = try await RoutedLab.admin(janus[index])
                #expect(try await watcher.admin.exists(room), "room \(room) of \(sessionID) at instance \(index)")
                await watcher.close()
            }
            for (alice, bob, _, _, _) in calls {
                await bob.disconnect()
                await alice.disconnect()
            }
        }
    }

    /// The instance carrying a call is killed (SIGKILL) mid-call: the session moves to the other instance, the
    /// publisher, told at once (`mediaRestart`; its media watchdog is the fallback), offers again on its upstream,
    /// the subscriber is offered the new feed on its subscription and its video comes back; the app sees only
    /// `reconnecting` / `reconnected`, no failure, the same stream. The time from the kill to media back is printed (issue 15's goal: within 5 s).
    @Test func killingAnInstanceMovesItsCallsToTheOther() async throws {
        try await RoutedLab.runTwo { lab, janus, server in
            // A first session takes instance 0, so the call below is on instance 1 (and the other stays up).
            let other = try await server.createSession(mediaMode: .routed).sessionID
            let bystander = try await RoutedLab.call(server, other, lab)
            let sessionID = try await server.createSession(mediaMode: .routed).sessionID
            let events = EventLog()
            let (alice, bob, _, _, renderer) = try await RoutedLab.call(server, sessionID, lab, events: events)
            let streamID = try #require(bob.streams.keys.first)
            let before = try #require(await server.routedMediaStatus())
            let index = try #require(before.placements[sessionID])
            #expect(before.placements[other] == 1 - index, "\(before)")

            let framesAtKill = renderer.frames
            let killed = ContinuousClock.now
            janus[index].kill()
            // Bounded wait (the acceptance's 5 s is a figure, printed; a loaded machine must not fail the test
            // on speed): media that does not come back within 20 s fails it.
            let back = await eventually(timeout: .seconds(20)) { renderer.frames >= framesAtKill + 10 }
            let elapsed = ContinuousClock.now - killed
            print("failover: 10 frames decoded again \(elapsed) after the kill (goal 5 s); subscriber events: "
                  + "\(events.entries)")
            let status = await server.routedMediaStatus()
            #expect(back, "media never came back: \(renderer.frames) frames, \(framesAtKill) at the kill; events \(events.entries); status \(String(describing: status))")
            let after = try #require(await server.routedMediaStatus())
            #expect(after.placements[sessionID] == 1 - index, "moved to the other instance: \(after)")
            #expect(after.instancesConnected[index] == false, "\(after)")
            #expect(after.publishers == 2 && after.subscribers == 2, "\(after)")
            #expect(!events.entries.contains { $0.hasPrefix("failed") }, "no failure: \(events.entries)")
            #expect(events.entries.contains("reconnecting"), "the app saw the outage: \(events.entries)")
            #expect(bob.streams[streamID] != nil, "the same stream lives on")
            // The bystander's call, on the surviving instance, never stopped.
            let bystanderFrames = bystander.4.frames
            #expect(await eventually { bystander.4.frames > bystanderFrames + 10 })
            for session in [alice, bob, bystander.0, bystander.1] { await session.disconnect() }
        }
    }
}

/// The app's view of a subscriber: its events, in order, as short strings.
final class EventLog: Sendable {
    private let log = Mutex<[String]>([])
    var entries: [String] { log.withLock { $0 } }

    func follow(_ events: AsyncStream<SubscriberEvent>) {
        Task {
            for await event in events {
                switch event {
                case .statisticsUpdated: continue
                case .failed(let error): self.log.withLock { $0.append("failed \(error)") }
                default: self.log.withLock { $0.append("\(event)") }
                }
            }
        }
    }
}

extension RoutedLab {
    /// Runs `body` with two Janus instances in two lab hosts and a server on 127.0.0.1 given both (instance 0
    /// first; `configure` may change the server's configuration); stops all of them whatever happens.
    static func runTwo(configure: (NetworkLab, inout ServerConfiguration) -> Void = { _, _ in },
                       _ body: (NetworkLab, [JanusProcess], TokKitServer) async throws -> Void) async throws {
        try await NetworkLab.run { lab in
            var janus: [JanusProcess] = []
            for label in ["janus0", "janus1"] {
                let host = try await lab.addHost(label)
                janus.append(try await JanusProcess.start(
                    JanusProcessConfiguration(mediaAddress: host.address, launcher: [ip, "netns", "exec", host.namespace],
                                              port: 8188, startTimeout: .seconds(30)),
                    logger: logger))
            }
            var configuration = ServerConfiguration(apiKey: apiKey, apiSecret: apiSecret)
            configuration.emptySessionTimeoutMs = 300
            configuration.janus = janus.map {
                RoutedMediaConfiguration(url: $0.url, apiSecret: $0.configuration.apiSecret,
                                         adminKey: $0.configuration.videoRoomAdminKey, requestTimeoutMs: 3_000)
            }
            configure(lab, &configuration)
            let server = try TokKitServer(configuration: configuration, logger: logger)
            _ = try await server.start()
            do {
                try await body(lab, janus, server)
            } catch {
                for (index, instance) in janus.enumerated() { print("janus \(index) log tail:\n\(instance.logTail(40))") }
                await server.stop()
                for instance in janus { await instance.stop(grace: .seconds(1)) }
                throw error
            }
            await server.stop()
            for instance in janus { await instance.stop(grace: .seconds(2)) }
        }
    }

    /// A routed call in `sessionID`: Alice publishes a pattern, Bob subscribes to it; returns once Bob's renderer has
    /// decoded frames. `events` follows the subscriber's events.
    static func call(_ server: TokKitServer, _ sessionID: String, _ lab: NetworkLab, events: EventLog? = nil)
        async throws -> (Session, Session, Publisher, Subscriber, CountingRenderer) {
        let alice = try await connect(server, sessionID, lab)
        let publisher = Publisher(name: "pattern", videoCapture: PatternCapturer(width: 160, height: 120))
        try await alice.publish(publisher)
        let streamID = try #require(publisher.stream?.streamID)
        let bob = try await connect(server, sessionID, lab)
        #expect(await eventually { bob.streams[streamID] != nil })
        let renderer = CountingRenderer()
        let subscriber = Subscriber(stream: try #require(bob.streams[streamID]), videoRender: renderer)
        events?.follow(subscriber.events)
        try await bob.subscribe(subscriber)
        let flowing = await eventually(timeout: .seconds(20)) { renderer.frames >= 10 }
        try #require(flowing, "media flows in \(sessionID)")
        return (alice, bob, publisher, subscriber, renderer)
    }
}
