import Synchronization
import Testing
import TokKitICE
import TokKitICETestSupport

@Suite(.serialized) struct ICEAgentTests {
    @Test func agentsConnectOnLoopbackAndExchangeDatagrams() async throws {
        let pair = try AgentPair()
        let agents = [pair.controlling, pair.controlled]
        #expect(pair.controlling.networkThreadName != pair.controlled.networkThreadName)
        #expect(await eventually { liveNetworkThreads(of: agents) == 2 },
                "one named network thread per agent: \(processThreads().map(\.name))")
        let toControlled = Inbox(), toControlling = Inbox()
        pair.controlled.setReceiveHandler(toControlled.handler())
        pair.controlling.setReceiveHandler(toControlling.handler())
        try pair.start()
        #expect(await eventually { pair.bothConnected() }, "both agents reach connected")

        for i in 0..<50 {
            let a: [UInt8] = Array("ping \(i)".utf8), b: [UInt8] = Array("pong \(i)".utf8)
            try a.withUnsafeBytes { try pair.controlling.send($0) }
            try b.withUnsafeBytes { try pair.controlled.send($0) }
        }
        #expect(await eventually { toControlled.count == 50 && toControlling.count == 50 })
        #expect(toControlled.datagrams.withLock { $0.first } == Array("ping 0".utf8))
        #expect(toControlling.datagrams.withLock { $0.last } == Array("pong 49".utf8))

        let candidates = pair.controllingLog.candidates
        #expect(!candidates.isEmpty)
        #expect(candidates.allSatisfy { $0.address == "127.0.0.1" && $0.kind == .host })
        #expect(candidates.allSatisfy { $0.sdp.hasPrefix("candidate:") && $0.sdp.contains(" typ host") })
        #expect(pair.controllingLog.gatheringCompletions == 1)
        #expect(pair.controllingLog.states.contains(.checking))

        await pair.close()
        #expect(pair.controlling.state == .closed && pair.controlled.state == .closed)
        #expect(pair.controllingLog.states.last == .closed)
        #expect(await eventually { liveNetworkThreads(of: agents) == 0 },
                "network threads end on close: \(processThreads().map(\.name))")
        #expect(glibWorkerCount() <= 1, "GLib's worker is a singleton")
        #expect(throws: ICEError.closed) { try [1, 2, 3].withUnsafeBytes { try pair.controlling.send($0) } }
    }

    @Test func restartGivesNewCredentialsAndReconnects() async throws {
        let pair = try AgentPair()
        let inbox = Inbox()
        pair.controlled.setReceiveHandler(inbox.handler())
        try pair.start()
        #expect(await eventually { pair.bothConnected() })
        let before = try pair.controlling.localCredentials

        // The controlling side initiates; the controlled side sees the new ufrag and restarts too. The
        // re-announced candidates trickle through the forwarders.
        let newControlling = try pair.controlling.restart()
        let newControlled = try pair.controlled.restart()
        #expect(newControlling.ufrag != before.ufrag && newControlling.pwd != before.pwd)
        try pair.controlling.setRemoteCredentials(newControlled)
        try pair.controlled.setRemoteCredentials(newControlling)
        #expect(await eventually { pair.controllingLog.gatheringCompletions == 2 })
        #expect(await eventually { pair.bothConnected() })

        let sent = Array("after restart".utf8)
        #expect(await eventually {
            try? sent.withUnsafeBytes { try pair.controlling.send($0) }
            return inbox.datagrams.withLock { $0.contains(sent) }
        })
        await pair.close()
    }

    @Test func sendingBeforeConnectivityFails() throws {
        let agent = try ICEAgent(role: .controlling)
        #expect(throws: ICEError.sendFailed) { try [1, 2, 3].withUnsafeBytes { try agent.send($0) } }
        agent.close()
    }

    @Test func badRemoteCandidatesGetTypedErrors() throws {
        let agent = try ICEAgent(role: .controlled)
        defer { agent.close() }
        #expect(throws: ICEError.self) { try agent.addRemoteCandidate("candidate:garbage") }
        #expect(throws: ICEError.unsupportedComponent(2)) {
            try agent.addRemoteCandidate("candidate:1 2 UDP 2013266431 127.0.0.1 40000 typ host")
        }
        #expect(throws: ICEError.unsupportedTransport("candidate:1 1 TCP 1010827775 127.0.0.1 9 typ host tcptype active")) {
            try agent.addRemoteCandidate("candidate:1 1 TCP 1010827775 127.0.0.1 9 typ host tcptype active")
        }
        try agent.addRemoteCandidate("a=candidate:1 1 UDP 2013266431 127.0.0.1 40000 typ host\r\n")
    }

    @Test func configuredLocalCredentialsAreUsed() throws {
        let creds = try ICECredentials(ufrag: "abcd", pwd: "0123456789abcdefghijkl")
        var config = ICEConfiguration.loopback
        config.localCredentials = creds
        let agent = try ICEAgent(role: .controlling, configuration: config)
        defer { agent.close() }
        #expect(try agent.localCredentials == creds)
    }

    /// The default gathers on every interface that is up, or on 127.0.0.1 when nothing else is. The suite's
    /// namespace holds only `lo`, so here that is 127.0.0.1 alone (never `::1`); the network lab tests show real
    /// interfaces being used (and `AgentPlanTests` the choice).
    @Test func theDefaultGathersOnEveryInterfaceOrLoopback() async throws {
        #expect(ICEConfiguration() == .allInterfaces)
        #expect(ICEConfiguration.allInterfaces.localAddresses.isEmpty && ICEConfiguration.allInterfaces.includesLoopback)
        let pair = try AgentPair(configuration: .allInterfaces)
        try pair.start()
        #expect(await eventually { pair.bothConnected() })
        #expect(await eventually { pair.controllingLog.gatheringCompletions == 1 })
        let candidates = pair.controllingLog.candidates
        #expect(!candidates.isEmpty)
        // Loopback, and nothing else unless a network lab's link is attached to this namespace (198.18.0.0/15).
        #expect(candidates.allSatisfy { ($0.address == "127.0.0.1" || $0.address.hasPrefix("198.1")) && $0.kind == .host },
                "\(candidates)")
        #expect(candidates.contains { $0.address == "127.0.0.1" } == candidates.allSatisfy { $0.address == "127.0.0.1" })
        // The selected pair names both ends, as reported by the event and kept by the agent.
        #expect(await eventually { pair.controlling.selectedPair != nil })
        let selected = try #require(pair.controlling.selectedPair)
        #expect(selected.local.kind == .host && selected.remote.kind == .host && !selected.isRelayed)
        #expect(selected.local.address == selected.remote.address
                && candidates.contains { $0.address == selected.local.address && $0.port == selected.local.port })
        // The agent keeps the pair before it emits the event: the event may still be on its way.
        #expect(await eventually { pair.controllingLog.events.withLock { $0.contains(.selectedPair(selected)) } })
        #expect(selected.description.hasPrefix("host \(selected.local.address):"))
        await pair.close()
    }

    @Test func relayOnlyWithoutATURNServerIsRefused() {
        var config = ICEConfiguration.loopback
        config.transportPolicy = .relay
        #expect(throws: ICEError.noRelayServer) { try ICEAgent(role: .controlling, configuration: config) }
        config.servers = [ICEServer(urls: ["stun:127.0.0.1:3478"])]
        #expect(throws: ICEError.noRelayServer) { try ICEAgent(role: .controlling, configuration: config) }
        config.servers.append(ICEServer(urls: ["turn:127.0.0.1:3478"], username: "u", credential: "p"))
        let agent = try? ICEAgent(role: .controlling, configuration: config)
        #expect(agent != nil)
        agent?.close()
    }

    /// Relay-only with a TURN server that refuses the connection: gathering ends without a single candidate, so
    /// no pair can ever form; the agent fails instead of waiting forever.
    @Test func gatheringNothingFailsTheAgent() async throws {
        var config = ICEConfiguration.loopback
        config.transportPolicy = .relay
        // TCP to a port nobody listens on: refused at once.
        config.servers = [ICEServer(urls: ["turn:127.0.0.1:9?transport=tcp"], username: "u", credential: "p")]
        let agent = try ICEAgent(role: .controlling, configuration: config)
        let log = EventLog()
        let follower = Task { for await event in agent.events { log.events.withLock { $0.append(event) } } }
        try agent.gatherCandidates()
        #expect(await eventually(within: .seconds(30)) { log.states.contains(.failed) }, "\(log.events.withLock { $0 })")
        #expect(log.candidates.isEmpty && log.gatheringCompletions == 1)
        #expect(agent.state == .failed)
        agent.close()
        follower.cancel()
    }

    @Test func invalidConfigurationIsRejected() {
        var config = ICEConfiguration.loopback
        config.localAddresses = ["not-an-ip"]
        #expect(throws: ICEError.invalidAddress("not-an-ip")) { try ICEAgent(role: .controlling, configuration: config) }
        config = .loopback
        config.interfaces = ["no-such-if0"]
        #expect(throws: ICEError.unknownInterface("no-such-if0")) { try ICEAgent(role: .controlling, configuration: config) }
    }

    @Test func serversAreAccepted() throws {
        var config = ICEConfiguration.loopback
        config.servers = [ICEServer(urls: ["stun:127.0.0.1:3478"]),
                          ICEServer(urls: ["turn:127.0.0.1:3478?transport=udp", "turns:localhost"],
                                    username: "u", credential: "p")]
        let agent = try ICEAgent(role: .controlling, configuration: config)
        agent.close()
    }

    @Test func timersRunOnTheNetworkThread() async throws {
        let agent = try ICEAgent(role: .controlling)
        let ranOnNetworkThread = Mutex<Bool?>(nil)
        agent.schedule(after: .milliseconds(5)) { ranOnNetworkThread.withLock { $0 = agent.isOnNetworkThread } }
        #expect(await eventually { ranOnNetworkThread.withLock { $0 } != nil })
        #expect(ranOnNetworkThread.withLock { $0 } == true)
        #expect(!agent.isOnNetworkThread)
        agent.close()
    }

    @Test func aRepeatingTimerRunsUntilItSaysStopAndEndsWithTheAgent() async throws {
        let agent = try ICEAgent(role: .controlling)
        let runs = Mutex<(count: Int, offThread: Int)>((0, 0))
        agent.schedule(every: .milliseconds(2)) {
            runs.withLock { r in
                r.count += 1
                if !agent.isOnNetworkThread { r.offThread += 1 }
                return r.count < 5
            }
        }
        #expect(await eventually { runs.withLock { $0.count } == 5 })
        try await Task.sleep(for: .milliseconds(30))
        #expect(runs.withLock { $0.count } == 5, "false ends the timer")
        #expect(runs.withLock { $0.offThread } == 0)

        // One that never says stop ends when the agent closes.
        let forever = Mutex(0)
        agent.schedule(every: .milliseconds(2)) { forever.withLock { $0 += 1 }; return true }
        #expect(await eventually { forever.withLock { $0 } >= 3 })
        agent.close()
        let atClose = forever.withLock { $0 }
        try await Task.sleep(for: .milliseconds(30))
        #expect(forever.withLock { $0 } == atClose)
    }

    /// Receive batching (40 ms): 40 datagrams sent 10 ms apart all arrive, in order, and in groups: the receiving
    /// network thread waits 40 ms after each wake-up before it polls again (or less, up to a timer due sooner:
    /// libnice's own, shortly after connecting, run every 20 ms), so several datagrams are read in one wake-up;
    /// without batching each is a group of its own (40: they are 10 ms apart). Groups are told apart by the gaps
    /// between deliveries (under 5 ms within one wake-up). Seen here: 21-24 groups. Timers still run (a 150 ms
    /// repeating timer counts on).
    @Test func receiveBatchingDeliversEverythingInGroups() async throws {
        var configuration = ICEConfiguration.loopback
        configuration.receiveBatching = .milliseconds(40)
        let pair = try AgentPair(configuration: configuration)
        let arrivals = Mutex<[(index: UInt8, at: ContinuousClock.Instant)]>([])
        pair.controlled.setReceiveHandler { bytes in
            let at = ContinuousClock.now
            arrivals.withLock { if $0.count < 1_000, let first = bytes.first { $0.append((first, at)) } }
        }
        pair.controlling.setReceiveHandler { _ in }
        try pair.start()
        #expect(await eventually { pair.bothConnected() }, "both agents reach connected")

        let ticks = Mutex(0)
        pair.controlled.schedule(every: .milliseconds(150)) { ticks.withLock { $0 += 1 }; return true }
        let started = ContinuousClock.now
        for i in 0..<40 {
            try [UInt8(i), 1, 2, 3].withUnsafeBytes { try pair.controlling.send($0) }
            try await Task.sleep(for: .milliseconds(10))
        }
        let sending = ContinuousClock.now - started
        #expect(await eventually { arrivals.withLock { $0.count } == 40 }, "every datagram arrives")
        let got = arrivals.withLock { $0 }
        #expect(got.map(\.index) == (0..<40).map { UInt8($0) }, "in order")
        var groups = got.isEmpty ? 0 : 1
        for i in got.indices.dropFirst() where got[i].at - got[i - 1].at > .milliseconds(5) { groups += 1 }
        // (35, not the 21-24 seen: a descheduled thread on a loaded machine splits a wake-up's deliveries.)
        #expect(groups <= 35, "\(groups) groups for \(sending) of sending (40 without batching)")
        #expect(ticks.withLock { $0 } >= 2, "the timer ran")
        print("receive batching: 40 datagrams over \(sending) in \(groups) wake-ups")
        await pair.close()
    }
}
