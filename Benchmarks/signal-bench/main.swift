// signal-bench: signaling figures on loopback (prints them; not a test).
//
//   swift run -c release signal-bench [--clients 2,10,100] [--round-trips 500]
//
// Starts the server in a child process (this binary with --serve), so that its memory can be read on its own,
// then for each client count N: connects N sessions, measures signal round-trip latency between two of them
// (A → server → B → server → A, one at a time), signals per second with every client sending to its neighbour
// at once, and the server's resident memory per connection (RSS delta / N).

import Foundation
import FoundationNetworking
import Logging
import Synchronization
import TokKit
import TokKitProtocol
import TokKitServer

let apiKey = "bench"
let apiSecret = "bench-secret-0123456789"

if CommandLine.arguments.contains("--serve") {
    try await serve()
} else {
    try await bench()
}

/// Child mode: run a server, print its port, stop at end of standard input.
func serve() async throws {
    var configuration = ServerConfiguration(apiKey: apiKey, apiSecret: apiSecret)
    configuration.outboxCapacity = 100_000
    var logger = Logger(label: "bench.server")
    logger.logLevel = .error
    let server = try TokKitServer(configuration: configuration, logger: logger)
    let port = try await server.start()
    print("PORT \(port)")
    fflush(nil)
    await Task.detached { while readLine() != nil {} }.value
    await server.stop()
}

func bench() async throws {
    let args = CommandLine.arguments
    func option(_ name: String) -> String? {
        args.firstIndex(of: name).flatMap { $0 + 1 < args.count ? args[$0 + 1] : nil }
    }
    let counts = (option("--clients") ?? "2,10,100").split(separator: ",").compactMap { Int($0) }
    let roundTrips = Int(option("--round-trips") ?? "") ?? 500

    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    child.arguments = ["--serve"]
    let input = Pipe(), output = Pipe()
    child.standardInput = input
    child.standardOutput = output
    try child.run()
    defer { try? input.fileHandleForWriting.close(); child.waitUntilExit() }
    guard let first = String(data: output.fileHandleForReading.availableData, encoding: .utf8),
          let port = Int(first.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
    else { throw BenchError("the server child did not report its port") }
    let base = "http://127.0.0.1:\(port)"
    let authority = TokenAuthority(apiKey: apiKey, apiSecret: apiSecret)

    // Warm the server up (first connections allocate its pools and buffers) before reading its memory.
    let warm = try await connect(10, sessionID: try await room("warm-up", base: base), base: base, authority: authority)
    for c in warm { await c.session.disconnect() }

    print("signal-bench: server pid \(child.processIdentifier) on \(base)")
    print("clients | rtt p50 | rtt p90 | rtt p99 | signals/s (each to a neighbour) | server RSS / connection")
    print("--------|---------|---------|---------|---------------------------------|------------------------")
    for n in counts where n >= 2 {
        let sessionID = try await room("bench-\(n)", base: base)
        let rssBefore = residentKiB(pid: child.processIdentifier)
        let clients = try await connect(n, sessionID: sessionID, base: base, authority: authority)
        // Let the server settle (every client has seen every other join), then read its memory.
        for c in clients {
            _ = await eventually { c.session.connectionCount == n - 1 }
        }
        let rssAfter = residentKiB(pid: child.processIdentifier)
        let rtts = try await roundTripTimes(clients[0], clients[1], count: roundTrips)
        let perSecond = try await throughput(clients, perClient: max(20, 20_000 / n))
        for c in clients { await c.session.disconnect() }
        let sorted = rtts.sorted()
        func pct(_ p: Double) -> String {
            let v = sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
            return String(format: "%.3f ms", v)
        }
        let perConnection = Double(rssAfter - rssBefore) / Double(n)
        print(String(format: "%7d | %@ | %@ | %@ | %31.0f | %.1f KiB", n, pct(0.5), pct(0.9), pct(0.99),
                     perSecond, perConnection))
    }
}

/// One connected client and the signals it received, by type.
final class Client: Sendable {
    let session: Session
    let received = Mutex<[String: Int]>([:])
    private let pongs: AsyncStream<Void>.Continuation
    let pongStream: AsyncStream<Void>

    init(session: Session) {
        self.session = session
        (pongStream, pongs) = AsyncStream.makeStream(of: Void.self)
    }

    /// Consumes the session's events: counts signals, answers pings, forwards pongs.
    func start() {
        let events = session.events
        Task { [self] in
            for await event in events {
                guard case .signalReceived(let type, let data, let from) = event else { continue }
                received.withLock { $0[type, default: 0] += 1 }
                switch type {
                case "ping": try? await session.signal(type: "pong", data: data, to: from)
                case "pong": pongs.yield()
                default: break
                }
            }
        }
    }
}

func connect(_ n: Int, sessionID: String, base: String, authority: TokenAuthority) async throws -> [Client] {
    var settings = SessionSettings()
    settings.logger.logLevel = .error
    settings.eventBufferLimit = 1_000_000
    settings.outgoingLimit = 100_000
    let now = Int64(Date().timeIntervalSince1970)
    var clients: [Client] = []
    for _ in 0..<n {
        let token = try authority.issue(sessionID: sessionID, now: now).token
        let session = Session(apiKey: apiKey, sessionID: SessionID(sessionID), serverURL: URL(string: base)!, settings: settings)
        let client = Client(session: session)
        client.start()
        try await session.connect(token: token)
        clients.append(client)
    }
    return clients
}

/// Round trips A → B → A, one at a time, in milliseconds (after a warm-up).
func roundTripTimes(_ a: Client, _ b: Client, count: Int) async throws -> [Double] {
    guard let to = b.session.connection else { throw BenchError("B is not connected") }
    var iterator = a.pongStream.makeAsyncIterator()
    var out: [Double] = []
    let clock = ContinuousClock()
    for i in 0..<(count + 50) {
        let start = clock.now
        try await a.session.signal(type: "ping", data: "\(i)", to: to)
        guard await iterator.next() != nil else { throw BenchError("pong stream ended") }
        let elapsed = clock.now - start
        if i >= 50 { out.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3) }
    }
    return out
}

/// Every client sends `perClient` signals to its neighbour at once; signals delivered per second.
func throughput(_ clients: [Client], perClient: Int) async throws -> Double {
    for c in clients { c.received.withLock { $0["load"] = 0 } }
    let total = clients.count * perClient
    let clock = ContinuousClock()
    let start = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for (i, c) in clients.enumerated() {
            let to = clients[(i + 1) % clients.count].session.connection
            group.addTask {
                // Keep up to 64 signals in flight per client.
                try await withThrowingTaskGroup(of: Void.self) { inner in
                    for k in 0..<perClient {
                        if k >= 64 { try await inner.next() }
                        inner.addTask { try await c.session.signal(type: "load", data: "x", to: to) }
                    }
                    try await inner.waitForAll()
                }
            }
        }
        try await group.waitForAll()
    }
    let delivered = await eventually(timeout: .seconds(60)) {
        clients.reduce(0) { $0 + $1.received.withLock { $0["load"] ?? 0 } } >= total
    }
    guard delivered else { throw BenchError("not every signal arrived within 60 s") }
    let elapsed = clock.now - start
    return Double(total) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
}

/// Creates (or reuses) a tutorial room and returns its session id.
func room(_ name: String, base: String) async throws -> String {
    struct Reply: Decodable {
        var sessionID: String
        enum CodingKeys: String, CodingKey { case sessionID = "sessionId" }
    }
    let (data, _) = try await URLSession.shared.data(from: URL(string: "\(base)/room/\(name)")!)
    return try JSONDecoder().decode(Reply.self, from: data).sessionID
}

/// VmRSS of a process, in KiB.
func residentKiB(pid: Int32) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
    }
    return 0
}

/// Polls until `condition` holds or `timeout` passes.
func eventually(timeout: Duration = .seconds(10), _ condition: () async -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return await condition()
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
