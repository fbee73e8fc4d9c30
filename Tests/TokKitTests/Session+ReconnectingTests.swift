import Testing
import TokKitProtocol
import TokKitServer

@testable import TokKit
import TokKitTesting

extension LiveServer {
    /// Network loss between a client and the server, made by cutting the client's TCP connection in a relay.
    @Suite struct SessionReconnectingTests {
        /// Retry slowly enough that a test can act while the session is reconnecting.
        static func settings(attempts: Int = 8, firstDelay: Duration = .milliseconds(400)) -> SessionSettings {
            var s = SessionSettings.quiet
            s.reconnectPolicy = ReconnectPolicy(
                maxAttempts: attempts, initialDelay: firstDelay, maxDelay: .milliseconds(800),
                totalTimeout: .seconds(10))
            return s
        }

        @Test func droppedSocketReconnectsWithTheSameConnectionAndLosesNoSignal() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let relay = try TCPRelay(upstreamPort: server.port)
            defer { relay.stop() }
            let (a, ra) = try await server.connected(url: "http://127.0.0.1:\(relay.port)", settings: Self.settings())
            let (b, rb) = try await server.connected()
            let publisher = Publisher(name: "survivor")
            try await a.publish(publisher)
            let aID = try #require(a.connection).connectionID
            try await a.signal(type: "before", data: "0")

            relay.cutAll()
            #expect(await eventually { a.sessionConnectionStatus == .reconnecting })
            // Signals made while reconnecting: held, then delivered once each, in order.
            try await withThrowingTaskGroup(of: Void.self) { group in
                // Each signal is made once the previous one is queued, so that their order is known.
                for i in 1...20 {
                    #expect(a.sessionConnectionStatus == .reconnecting, "signal \(i) was not made while reconnecting")
                    group.addTask { try await a.signal(type: "during", data: "\(i)", retryAfterReconnect: true) }
                    #expect(await eventually { a.pendingRequestCount == i })
                }
                // Without retry, a signal fails at once.
                await #expect(throws: SessionError.notConnected) {
                    try await a.signal(type: "noretry", data: "", retryAfterReconnect: false)
                }
                try await group.waitForAll()
            }
            #expect(a.sessionConnectionStatus == .connected)
            #expect(a.connection?.connectionID == aID)
            #expect(relay.accepted >= 2)
            #expect(await ra.wait { $0.contains { $0.isReconnected } })
            let names = ra.all.map(\.name)
            let dropAt = try #require(names.firstIndex(of: "reconnecting"))
            #expect(names.firstIndex(of: "reconnected")! > dropAt)
            #expect(!names.contains("disconnected"))

            try await a.signal(type: "after", data: "21")
            let atB = await rb.wait(for: 22) { $0.signal }
            #expect(atB.map(\.data) == (0...21).map { "\($0)" })
            #expect(atB.allSatisfy { $0.from == aID })
            // B never saw A leave; its stream is still there and still A's.
            #expect(!rb.all.contains { $0.connectionDestroyed != nil || $0.streamDestroyed != nil })
            #expect(b.connections.map(\.connectionID) == [aID])
            #expect(publisher.stream != nil)
            #expect(await server.server.stats().connections == 2)
            await a.disconnect()
            await b.disconnect()
        }

        @Test func changesDuringTheGapAreReconciled() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let relay = try TCPRelay(upstreamPort: server.port)
            defer { relay.stop() }
            let (a, ra) = try await server.connected(url: "http://127.0.0.1:\(relay.port)", settings: Self.settings())
            let (b, _) = try await server.connected()
            let bPublisher = Publisher(name: "b-stream")
            try await b.publish(bPublisher)
            #expect(await eventually { a.streams.count == 1 })

            relay.cutAll()
            #expect(await eventually { a.sessionConnectionStatus == .reconnecting })
            // While A is away: B leaves, C joins and publishes.
            await b.disconnect()
            let (c, _) = try await server.connected(data: "C")
            try await c.publish(Publisher(name: "c-stream"))

            #expect(await ra.wait { $0.contains { $0.isReconnected } })
            let names = ra.all.map(\.name)
            let from = names.firstIndex(of: "reconnecting")!
            #expect(Array(names[from...]) == [
                "reconnecting", "streamDestroyed", "connectionDestroyed", "connectionCreated", "streamCreated",
                "reconnected",
            ])
            #expect(a.connections.map(\.data) == ["C"])
            #expect(a.streams.values.map(\.name) == ["c-stream"])
            await a.disconnect()
            await c.disconnect()
        }

        @Test func givingUpDisconnectsAndFailsHeldSignals() async throws {
            let server = try await TestServer.start(resumeGraceMs: 1_500)
            defer { Task { await server.stop() } }
            let relay = try TCPRelay(upstreamPort: server.port)
            let (a, ra) = try await server.connected(
                url: "http://127.0.0.1:\(relay.port)", settings: Self.settings(attempts: 3, firstDelay: .milliseconds(100)))
            let (b, rb) = try await server.connected()
            let publisher = Publisher(name: "p")
            let pubDelegate = PublisherRecorder()
            publisher.delegate = pubDelegate
            try await a.publish(publisher)

            relay.stop()  // the network stays down
            #expect(await eventually { a.sessionConnectionStatus == .reconnecting })
            await #expect(throws: SessionError.unableToSendSignal("the session disconnected")) {
                try await a.signal(type: "lost", data: "", retryAfterReconnect: true)
            }
            #expect(await ra.wait { $0.last?.isDisconnected == true })
            #expect(a.sessionConnectionStatus == .notConnected)
            #expect(publisher.stream == nil)
            #expect(await eventually { pubDelegate.events == ["streamCreated", "streamDestroyed"] })
            // The server forgets A after its grace period: B sees the stream, then the connection, go.
            let left = await rb.wait(timeout: .seconds(10)) { $0.contains { $0.connectionDestroyed != nil } }
            let stats = await server.server.stats()
            #expect(left, "B saw \(rb.all.map(\.name)); server: \(stats)")
            #expect(!rb.all.contains { $0.signal != nil })
            #expect(await eventually { SignalingLink.liveCount <= 1 })  // B's link only
            await b.disconnect()
        }

        @Test func idleConnectionStaysAliveThroughHeartbeats() async throws {
            // The server drops sockets silent for 600 ms; the client pings every 200 ms (as `connected` says).
            let server = try await TestServer.start(heartbeatIntervalMs: 200, heartbeatTimeoutMs: 600)
            defer { Task { await server.stop() } }
            let (a, ra) = try await server.connected(settings: Self.settings(firstDelay: .milliseconds(50)))
            // Six pongs: at least 1.2 s of idle time, twice the timeout.
            #expect(await eventually { a.pongsReceived >= 6 })
            #expect(a.sessionConnectionStatus == .connected)
            #expect(!ra.all.contains { $0.isReconnecting })
            await a.disconnect()
        }

        @Test func silentSocketIsDetectedByTheWatchdog() async throws {
            // A frozen relay keeps the TCP connection open but passes nothing: only the heartbeat can tell.
            let server = try await TestServer.start(heartbeatIntervalMs: 200, heartbeatTimeoutMs: 600)
            defer { Task { await server.stop() } }
            let relay = try TCPRelay(upstreamPort: server.port)
            defer { relay.stop() }
            let (a, ra) = try await server.connected(
                url: "http://127.0.0.1:\(relay.port)", settings: Self.settings(firstDelay: .milliseconds(50)))
            let aID = try #require(a.connection).connectionID
            relay.freezeExisting()
            #expect(await ra.wait { $0.contains { $0.isReconnecting } })
            #expect(await ra.wait { $0.contains { $0.isReconnected } })
            #expect(a.connection?.connectionID == aID)
            #expect(!ra.all.contains { $0.isDisconnected })
            await a.disconnect()
        }
    }
}
