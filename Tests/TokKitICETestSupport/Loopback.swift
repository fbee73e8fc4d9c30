import Foundation
import Synchronization
import TokKitICE

// Loopback helpers shared by the ICE, DTLS (and later) test targets: two agents on 127.0.0.1, event logs, inboxes,
// bounded polling and thread accounting. Test-only; nothing in Sources depends on it.

/// Polls `condition` until it holds or `timeout` passes (bounded: at most timeout/2 ms polls).
/// Bounded generously: other suites block the 2-thread cooperative pool (ffmpeg, Chromium, Xvfb waits) and the
/// candidate forwarders need a pool thread, so under a full parallel run trickle can stall for seconds.
public func eventually(within timeout: Duration = .seconds(60), _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}

/// Threads of this process as (tid, name), from /proc/self/task.
public func processThreads() -> [(tid: String, name: String)] {
    let tids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tids.map { tid in
        let comm = (try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8)) ?? ""
        return (tid, comm.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

/// How many of the given agents' network threads exist. Counted by name because Swift Testing runs other
/// suites (and their agents' threads) concurrently.
public func liveNetworkThreads(of agents: [ICEAgent]) -> Int {
    let names = Set(agents.map(\.networkThreadName))
    return processThreads().filter { names.contains($0.name) }.count
}

/// GLib's process-wide `gmain` worker threads (at most one may exist).
public func glibWorkerCount() -> Int {
    processThreads().filter { $0.name == "gmain" }.count
}

/// Everything an agent reported, for assertions.
public final class EventLog: Sendable {
    public init() {}
    public let events = Mutex<[ICEEvent]>([])
    public var states: [ICEState] {
        events.withLock { $0.compactMap { if case .stateChanged(let s) = $0 { s } else { nil } } }
    }
    public var candidates: [ICECandidate] {
        events.withLock { $0.compactMap { if case .localCandidate(let c) = $0 { c } else { nil } } }
    }
    public var gatheringCompletions: Int {
        events.withLock { $0.filter { $0 == .gatheringComplete }.count }
    }
}

/// Collects received datagrams (bounded: keeps the first 10 000).
public final class Inbox: Sendable {
    public init() {}
    public let datagrams = Mutex<[[UInt8]]>([])
    public var count: Int { datagrams.withLock { $0.count } }
    public func handler() -> @Sendable (UnsafeRawBufferPointer) -> Void {
        { [self] bytes in datagrams.withLock { if $0.count < 10_000 { $0.append(Array(bytes)) } } }
    }
}

/// Two agents on 127.0.0.1 whose candidates trickle to each other through their event streams.
public final class AgentPair: Sendable {
    public let controlling: ICEAgent
    public let controlled: ICEAgent
    public let controllingLog = EventLog()
    public let controlledLog = EventLog()
    private let forwarders: Mutex<[Task<Void, Never>]> = Mutex([])

    public init(configuration: ICEConfiguration = .loopback) throws {
        controlling = try ICEAgent(role: .controlling, configuration: configuration)
        controlled = try ICEAgent(role: .controlled, configuration: configuration)
        forwarders.withLock {
            $0 = [Self.forward(controlling, to: controlled, log: controllingLog),
                  Self.forward(controlled, to: controlling, log: controlledLog)]
        }
    }

    private static func forward(_ from: ICEAgent, to: ICEAgent, log: EventLog) -> Task<Void, Never> {
        Task {
            for await event in from.events {
                log.events.withLock { $0.append(event) }
                switch event {
                case .localCandidate(let c): try? to.addRemoteCandidate(c.sdp)
                case .gatheringComplete: try? to.addRemoteEndOfCandidates()
                default: break
                }
            }
        }
    }

    /// Exchanges credentials and gathers on both sides.
    public func start() throws {
        try controlling.setRemoteCredentials(controlled.localCredentials)
        try controlled.setRemoteCredentials(controlling.localCredentials)
        try controlling.gatherCandidates()
        try controlled.gatherCandidates()
    }

    public func bothConnected() -> Bool { controlling.state == .connected && controlled.state == .connected }

    /// Closes both agents and waits for the forwarding tasks (their streams finish on close).
    public func close() async {
        controlling.close()
        controlled.close()
        for t in forwarders.withLock({ $0 }) { await t.value }
    }
}
