// load-bench: the acceptance load figures of issue 17 against a real `tokkit-server` process (prints them; not a
// test, nothing is asserted).
//
//   swift build -c release --product tokkit-server --product load-bench
//   .build/release/load-bench [--scenario all|one|many|slowloris] [--server PATH]
//       [--clients 500] [--signals-one 2] [--sessions 1000] [--per-session 4] [--signals-many 10]
//       [--slowloris 1000] [--hold 20] [--connect-concurrency 64] [--server-log-level error]
//
// Each scenario starts a fresh `tokkit-server` (release build, next to this binary unless --server) bound to
// 127.0.0.1 on a free port, with a config file whose caps fit the scenario (printed), creates sessions and mints
// tokens through the REST API with partner credentials (X-TB-PARTNER-AUTH, Docs/Protocol.md 5.1, 5.3), and drives
// signaling-only clients over WebSocket in this process (NIOWebSocket).
// The server's RSS and open descriptors are read from /proc/<pid>/status and /proc/<pid>/fd.
//
//   one:       N clients in one session; each sends S signals to the session (delivered to all N).
//   many:      M sessions of K clients; each client sends S signals to its session.
//   slowloris: L TCP connections send a partial request head one header line every 3 s (reopened when the server
//              closes them); meanwhile normal clients do REST GETs and WebSocket connect + signal + disconnect,
//              timed against 50 ms p99 and against the same traffic without slowloris, measured first.
//
// Every loop and wait is bounded in count and time; all traffic goes to 127.0.0.1.

import Foundation
import NIOCore
import NIOPosix
import Synchronization
import NIOHTTP1
import NIOWebSocket

#if canImport(Glibc)
import Glibc
#endif

// MARK: - Output and arguments

func emit(_ name: String, _ value: Double, _ unit: String) {
    let text = value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.3f", value)
    print("\(name) \(text) \(unit)")
    fflush(nil)
}
func note(_ text: String) { print("# \(text)"); fflush(nil) }

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}
func intOption(_ name: String, _ fallback: Int) -> Int { option(name).flatMap { Int($0) } ?? fallback }

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

func nowNs() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}
func ms(_ ns: Int64) -> Double { Double(ns) / 1e6 }

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let index = min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))
    return sorted[index]
}
func emitDistribution(_ name: String, _ values: [Double]) {
    let sorted = values.sorted()
    emit("\(name).count", Double(sorted.count), "samples")
    guard !sorted.isEmpty else { return }
    emit("\(name).p50", percentile(sorted, 0.5), "ms")
    emit("\(name).p99", percentile(sorted, 0.99), "ms")
    emit("\(name).max", sorted.last!, "ms")
}

/// Raises this process's descriptor soft limit to the hard limit (as tokkit-server does for its cap).
func raiseDescriptorLimit() -> Int {
    let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    var limit = rlimit()
    guard getrlimit(resource, &limit) == 0 else { return 0 }
    if limit.rlim_cur < limit.rlim_max {
        var raised = limit
        raised.rlim_cur = limit.rlim_max
        if setrlimit(resource, &raised) == 0 { limit = raised }
    }
    return Int(clamping: limit.rlim_cur)
}

// MARK: - The server process

let apiKey = "loadbench"
let apiSecret = "load-bench-secret-0123456789"
let partnerAuth = "\(apiKey):\(apiSecret)"

struct ProcessFigures { var rssKiB: Int; var fds: Int }

final class ServerProcess: @unchecked Sendable {  // figures() reads only pid
    let process = Process()
    let port: Int
    let pid: Int32
    let configPath: String

    init(executable: String, settings: [String: Any], label: String) throws {
        configPath = NSTemporaryDirectory() + "load-bench-\(label)-\(getpid()).json"
        let data = try JSONSerialization.data(withJSONObject: settings, options: [.sortedKeys])
        try data.write(to: URL(fileURLWithPath: configPath))
        note("server config (\(label)): \(String(decoding: data, as: UTF8.self))")
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--config", configPath, "--log-level", option("--server-log-level") ?? "error"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        pid = process.processIdentifier
        // The first line is "tokkit-server listening on http://127.0.0.1:PORT ..."; bounded by the pipe closing.
        var text = ""
        let deadline = nowNs() + 15_000_000_000
        while !text.contains("\n"), nowNs() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let range = text.range(of: "http://127.0.0.1:"),
              let port = Int(text[range.upperBound...].prefix { $0.isNumber })
        else {
            process.terminate()
            throw BenchError("tokkit-server did not report its port: \(text)")
        }
        self.port = port
    }

    func figures() -> ProcessFigures {
        var rss = -1
        if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) {
            rss = Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
        }
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
        return ProcessFigures(rssKiB: rss, fds: fds)
    }

    /// CPU time the server has used so far (user + system, from /proc/<pid>/stat), in seconds.
    func cpuSeconds() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")")
        else { return .nan }
        // After "pid (comm) ": state is field 3; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func stop() {
        process.terminate()  // SIGTERM: graceful stop
        let deadline = nowNs() + 10_000_000_000
        while process.isRunning, nowNs() < deadline { usleep(20_000) }
        if process.isRunning { kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(atPath: configPath)
    }
}

/// Samples the server's figures every 100 ms and keeps the peak.
final class PeakSampler: Sendable {
    let peak = Mutex(ProcessFigures(rssKiB: 0, fds: 0))
    let running = Atomic<Bool>(true)
    func start(_ server: ServerProcess) -> Task<Void, Never> {
        return Task.detached { [self] in
            var rounds = 0
            while running.load(ordering: .relaxed), rounds < 100_000 {  // ≤ 10 000 s
                let f = server.figures()
                peak.withLock { $0 = ProcessFigures(rssKiB: max($0.rssKiB, f.rssKiB), fds: max($0.fds, f.fds)) }
                rounds += 1
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}

func emitFigures(_ prefix: String, _ stage: String, _ f: ProcessFigures) {
    emit("\(prefix).server_rss_\(stage)", Double(f.rssKiB) / 1024, "MiB")
    emit("\(prefix).server_fds_\(stage)", Double(f.fds), "fds")
}

// MARK: - HTTP over raw TCP (NIO)

struct HTTPReply { var status: Int; var body: String }

/// One request on its own connection (`Connection: close`), read to EOF; bounded by `timeout`.
func http(_ port: Int, _ method: String, _ path: String, body: String? = nil, headers: [String] = [],
          timeout: Duration = .seconds(10)) async throws -> HTTPReply {
    var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    for header in headers { head += header + "\r\n" }
    if let body {
        head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
    } else {
        head += "\r\n"
    }
    let request = head
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .connectTimeout(.seconds(5))
        .connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
    let raw: String = try await withThrowingTaskGroup(of: String?.self) { group in
        group.addTask {
            try await channel.executeThenClose { inbound, outbound in
                try await outbound.write(ByteBuffer(string: request))
                var data = ByteBuffer()
                for try await var chunk in inbound { data.writeBuffer(&chunk) }
                return String(buffer: data)
            }
        }
        group.addTask { try await Task.sleep(for: timeout); return nil }
        let first = try await group.next()!
        group.cancelAll()
        if first == nil { channel.channel.close(promise: nil) }
        guard let first else { throw BenchError("HTTP \(method) \(path) timed out") }
        return first
    }
    let statusLine = raw.prefix { $0 != "\r" }
    let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? -1
    let body = raw.range(of: "\r\n\r\n").map { String(raw[$0.upperBound...]) } ?? ""
    return HTTPReply(status: status, body: body)
}

func jsonField(_ body: String, _ key: String) -> String? {
    guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return nil }
    return object[key] as? String
}

func createSession(_ port: Int) async throws -> String {
    let reply = try await http(port, "POST", "/session/create", body: "{}", headers: ["X-TB-PARTNER-AUTH: \(partnerAuth)"])
    guard reply.status == 200, let id = jsonField(reply.body, "sessionId") else {
        throw BenchError("POST /session/create: \(reply.status) \(reply.body)")
    }
    return id
}

func mintToken(_ port: Int, session: String) async throws -> String {
    let reply = try await http(port, "POST", "/v2/project/\(apiKey)/session/\(session)/token",
                               body: "{\"role\":\"publisher\"}", headers: ["X-TB-PARTNER-AUTH: \(partnerAuth)"])
    guard reply.status == 200, let token = jsonField(reply.body, "token") else {
        throw BenchError("POST .../token: \(reply.status) \(reply.body)")
    }
    return token
}

/// Runs `work` for 0..<count with at most `width` at once.
func bounded<T: Sendable>(_ count: Int, width: Int, _ work: @escaping @Sendable (Int) async throws -> T)
    async throws -> [T] {
    try await withThrowingTaskGroup(of: (Int, T).self) { group in
        var results = [T?](repeating: nil, count: count)
        var next = 0
        while next < min(width, count) { let i = next; group.addTask { (i, try await work(i)) }; next += 1 }
        while let (i, value) = try await group.next() {
            results[i] = value
            if next < count { let j = next; group.addTask { (j, try await work(j)) }; next += 1 }
        }
        return results.map { $0! }
    }
}

// MARK: - WebSocket over NIO (the upgrade of swift-nio's NIOWebSocket; no TLS, so no second BoringSSL to build)

enum Upgrade: Sendable {
    case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
    case notUpgraded
}

func openWebSocket(port: Int) async throws -> NIOAsyncChannel<WebSocketFrame, WebSocketFrame> {
    let upgrade: EventLoopFuture<Upgrade> = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .connectTimeout(.seconds(10))
        .connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(maxFrameSize: 1 << 20) { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        .websocket(try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel))
                    }
                }
                var headers = HTTPHeaders()
                headers.add(name: "Host", value: "127.0.0.1:\(port)")
                headers.add(name: "Content-Length", value: "0")
                let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/signaling", headers: headers)
                var configuration = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration:
                    NIOTypedHTTPClientUpgradeConfiguration(upgradeRequestHead: head, upgraders: [upgrader]) { channel in
                        channel.eventLoop.makeCompletedFuture { .notUpgraded }
                    })
                configuration.leftOverBytesStrategy = .forwardBytes
                return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: configuration)
            }
        }
    switch try await upgrade.get() {
    case .websocket(let channel): return channel
    case .notUpgraded: throw BenchError("the server did not upgrade /signaling")
    }
}

// MARK: - A signaling client

/// Deliveries across all clients (signal messages received) and the latest delivery instant.
enum Totals {
    static let deliveries = Atomic<Int>(0)
    static let lastDeliveryNs = Atomic<Int64>(0)
}

final class Client: Sendable {
    let index: Int
    let session: String
    let token: String
    let port: Int
    private let outgoing: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation
    /// connect duration in ns once `connected` arrived; -1 on failure (error or closed first).
    let connectNs = Atomic<Int64>(0)
    let deliveries = Atomic<Int>(0)
    let latencies = Mutex<[Double]>([])
    let keepLatencies: Bool
    let outboxFull = Atomic<Bool>(false)
    let failure = Mutex<String?>(nil)
    let task = Mutex<Task<Void, Never>?>(nil)

    init(index: Int, session: String, token: String, port: Int, keepLatencies: Bool) {
        self.index = index
        self.session = session
        self.token = token
        self.port = port
        self.keepLatencies = keepLatencies
        (outgoing, continuation) = AsyncStream.makeStream(of: String.self)
    }

    func send(_ text: String) { continuation.yield(text) }
    func leave() {
        continuation.yield("{\"type\":\"disconnect\"}")
        continuation.finish()
    }
    func start() {
        let started = nowNs()
        let t = Task { await self.run(started: started) }
        task.withLock { $0 = t }
    }
    /// Waits (polling, bounded) until connected or failed.
    func waitConnected(timeout: Int64) async -> Bool {
        let deadline = nowNs() + timeout
        while nowNs() < deadline {
            let c = connectNs.load(ordering: .acquiring)
            if c != 0 { return c > 0 }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return false
    }
    func waitEnded() async { await task.withLock { $0 }?.value }

    private func run(started: Int64) async {
        let hello = "{\"type\":\"connect\",\"version\":1,\"apiKey\":\"\(apiKey)\",\"sessionId\":\"\(session)\",\"token\":\"\(token)\"}"
        do {
            let ws = try await openWebSocket(port: port)
            try await ws.executeThenClose { inbound, outbound in
                @Sendable func text(_ string: String) -> WebSocketFrame {
                    WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: string))
                }
                try await outbound.write(text(hello))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {  // what the bench sends; a disconnect ends it
                        for await message in self.outgoing { try await outbound.write(text(message)) }
                    }
                    group.addTask {  // heartbeat, as a client must (Protocol.md 6.2.4): every 4 s, bounded
                        for _ in 0..<10_000 {
                            try await Task.sleep(for: .seconds(4))
                            try await outbound.write(text("{\"type\":\"ping\"}"))
                        }
                    }
                    var pending = ByteBuffer()
                    var frames = 0
                    for try await frame in inbound {
                        frames += 1
                        switch frame.opcode {
                        case .text, .continuation:
                            var data = frame.unmaskedData
                            pending.writeBuffer(&data)
                            if frame.fin {
                                self.received(String(buffer: pending), started: started)
                                pending.clear()
                            }
                        case .ping:
                            try await outbound.write(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(),
                                                                    data: frame.unmaskedData))
                        case .connectionClose:
                            var data = frame.unmaskedData
                            let code = data.readInteger(as: UInt16.self).map { Int($0) } ?? 1005
                            if code == 1008 { self.outboxFull.store(true, ordering: .relaxed) }
                            if code != 1000 { self.failure.withLock { $0 = $0 ?? "closed \(code)" } }
                            var echo = ByteBuffer()
                            echo.writeInteger(UInt16(1000))
                            try? await outbound.write(WebSocketFrame(fin: true, opcode: .connectionClose,
                                                                     maskKey: .random(), data: echo))
                            group.cancelAll()
                            return
                        default: continue
                        }
                    }
                    group.cancelAll()
                }
            }
        } catch is CancellationError {
        } catch {
            failure.withLock { $0 = $0 ?? "\(error)" }
        }
        _ = connectNs.compareExchange(expected: 0, desired: -1, ordering: .releasing)
    }

    private func received(_ text: String, started: Int64) {
        let now = nowNs()
        // Cheap scans instead of a JSON decoder: the load generator shares the two cores with the server.
        if text.contains("\"type\":\"signal\"") {
            deliveries.add(1, ordering: .relaxed)
            Totals.deliveries.add(1, ordering: .relaxed)
            var latest = Totals.lastDeliveryNs.load(ordering: .relaxed)
            while latest < now {
                let (exchanged, original) = Totals.lastDeliveryNs.compareExchange(
                    expected: latest, desired: now, ordering: .relaxed)
                if exchanged { break }
                latest = original
            }
            if keepLatencies, let r = text.range(of: "\"data\":\"") {
                if let sent = Int64(text[r.upperBound...].prefix { $0.isNumber }) {
                    latencies.withLock { $0.append(ms(now - sent)) }
                }
            }
        } else if text.contains("\"type\":\"connected\"") {
            _ = connectNs.compareExchange(expected: 0, desired: max(1, now - started), ordering: .releasing)
        } else if text.contains("\"type\":\"error\"") {
            failure.withLock { $0 = $0 ?? text }
            _ = connectNs.compareExchange(expected: 0, desired: -1, ordering: .releasing)
        }
    }
}


func signalMessage(_ type: String) -> String {
    "{\"type\":\"signal\",\"signalType\":\"\(type)\",\"data\":\"\(nowNs())\"}"
}

// MARK: - Scenarios 1 and 2: clients in sessions

func sessionsScenario(name: String, server: ServerProcess, sessions: Int, perSession: Int, signals: Int,
                      connectWidth: Int) async throws {
    let port = server.port
    let clientCount = sessions * perSession
    emit("\(name).sessions", Double(sessions), "sessions")
    emit("\(name).clients", Double(clientCount), "clients")
    emit("\(name).signals_per_client", Double(signals), "signals")
    try await Task.sleep(for: .milliseconds(500))
    emitFigures(name, "before", server.figures())
    let sampler = PeakSampler()
    let samplerTask = sampler.start(server)

    // Sessions and tokens through the REST API (partner credentials).
    let mintStart = nowNs()
    let sessionIDs = try await bounded(sessions, width: 8) { _ in try await createSession(port) }
    let tokens = try await bounded(clientCount, width: 8) { i in try await mintToken(port, session: sessionIDs[i / perSession]) }
    emit("\(name).rest_setup_rate", Double(sessions + clientCount) / (ms(nowNs() - mintStart) / 1000), "requests/s")

    // Connect, at most connectWidth handshakes in flight.
    let clients = (0..<clientCount).map {
        Client(index: $0, session: sessionIDs[$0 / perSession], token: tokens[$0], port: port, keepLatencies: true)
    }
    Totals.deliveries.store(0, ordering: .relaxed)
    Totals.lastDeliveryNs.store(0, ordering: .relaxed)
    let connectStart = nowNs()
    let connectCPU = server.cpuSeconds()
    let ok = try await bounded(clientCount, width: connectWidth) { i in
        clients[i].start()
        return await clients[i].waitConnected(timeout: 30_000_000_000)
    }
    let connectWall = nowNs() - connectStart
    let connected = ok.filter { $0 }.count
    emit("\(name).connected", Double(connected), "clients")
    emit("\(name).connect_failed", Double(clientCount - connected), "clients")
    if let firstFailure = clients.lazy.compactMap({ $0.failure.withLock { $0 } }).first {
        note("first client failure: \(firstFailure.prefix(300))")
    }
    emit("\(name).connect_concurrency", Double(connectWidth), "handshakes")
    emitDistribution("\(name).connect", clients.map { ms($0.connectNs.load(ordering: .relaxed)) }.filter { $0 > 0 })
    emit("\(name).connect_rate", Double(connected) / (ms(connectWall) / 1000), "connects/s")
    emit("\(name).server_cpu_connect", server.cpuSeconds() - connectCPU, "s")
    // Let connectionCreated fan-out settle before counting (bounded).
    try await Task.sleep(for: .seconds(1))
    emitFigures(name, "connected", server.figures())

    // Signals: every client sends `signals` broadcasts to its session as fast as it can.
    // Each connected client's signals reach every connected client of its session, itself included.
    var expected = 0
    for s in 0..<sessions {
        let members = (0..<perSession).filter { ok[s * perSession + $0] }.count
        expected += members * members * signals
    }
    let signalStart = nowNs()
    let signalCPU = server.cpuSeconds()
    for round in 0..<signals {
        for (i, client) in clients.enumerated() where ok[i] { client.send(signalMessage("r\(round)")) }
    }
    let deadline = nowNs() + 120_000_000_000
    var waited = 0
    var lastCount = -1, lastChange = nowNs()
    while Totals.deliveries.load(ordering: .relaxed) < expected, nowNs() < deadline, waited < 100_000 {
        try await Task.sleep(for: .milliseconds(10))
        waited += 1
        let count = Totals.deliveries.load(ordering: .relaxed)
        if count != lastCount { lastCount = count; lastChange = nowNs() }
        if nowNs() - lastChange > 10_000_000_000 { note("deliveries stalled for 10 s"); break }
    }
    let delivered = Totals.deliveries.load(ordering: .relaxed)
    let span = Totals.lastDeliveryNs.load(ordering: .relaxed) - signalStart
    emit("\(name).signals_sent", Double(connected * signals), "signals")
    emit("\(name).deliveries_expected", Double(expected), "deliveries")
    emit("\(name).deliveries", Double(delivered), "deliveries")
    emit("\(name).signal_rate", Double(connected * signals) / (ms(span) / 1000), "signals/s")
    emit("\(name).delivery_rate", Double(delivered) / (ms(span) / 1000), "deliveries/s")
    emit("\(name).delivery_span", ms(span), "ms")
    // The server's CPU for the signals, per delivery: a figure of the server's own cost, which the shared machine
    // changes less than it changes the rates above.
    let cpu = server.cpuSeconds() - signalCPU
    emit("\(name).server_cpu_signals", cpu, "s")
    emit("\(name).server_cpu_per_delivery", delivered > 0 ? cpu * 1e6 / Double(delivered) : .nan, "us")
    emitDistribution("\(name).signal_latency", clients.flatMap { $0.latencies.withLock { $0 } })
    let lost = clients.filter { $0.failure.withLock { $0 } != nil }
    emit("\(name).sockets_ended_before_leaving", Double(lost.count), "clients")
    if let first = lost.first?.failure.withLock({ $0 }) { note("first socket end before leaving: \(first.prefix(300))") }
    emit("\(name).closed_outbox_full", Double(clients.filter { $0.outboxFull.load(ordering: .relaxed) }.count), "clients")
    emitFigures(name, "signalled", server.figures())

    // Everyone leaves.
    for client in clients { client.leave() }
    let leaveDeadline = nowNs() + 60_000_000_000
    for client in clients where nowNs() < leaveDeadline {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await client.waitEnded() }
            group.addTask { try? await Task.sleep(for: .seconds(5)) }
            await group.next()
            group.cancelAll()
        }
    }
    sampler.running.store(false, ordering: .relaxed)
    await samplerTask.value
    emitFigures(name, "peak", sampler.peak.withLock { $0 })
    // The server closes each socket after `disconnect`; give it up to 10 s to release the descriptors.
    var after = server.figures()
    for _ in 0..<100 where after.fds > 40 {
        try await Task.sleep(for: .milliseconds(100))
        after = server.figures()
    }
    emitFigures(name, "after", after)
}

// MARK: - Scenario 3: slowloris

final class SlowlorisStats: Sendable {
    let open = Atomic<Int>(0)
    let opened = Atomic<Int>(0)
    let refused503 = Atomic<Int>(0)
    let otherReply = Atomic<Int>(0)
    let closedByServer = Atomic<Int>(0)
    let connectFailed = Atomic<Int>(0)
    let heldMs = Mutex<[Double]>([])
}

/// One slot: opens a connection that trickles a request head, reopens it when the server closes it, until `until`.
func slowlorisSlot(_ port: Int, slot: Int, until: Int64, stats: SlowlorisStats) async {
    var attempts = 0
    while nowNs() < until, attempts < 200, !Task.isCancelled {
        attempts += 1
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(5))
                .connect(host: "127.0.0.1", port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            stats.connectFailed.add(1, ordering: .relaxed)
            try? await Task.sleep(for: .milliseconds(200))
            continue
        }
        stats.opened.add(1, ordering: .relaxed)
        stats.open.add(1, ordering: .relaxed)
        let openedAt = nowNs()
        let closedByServer: Bool = (try? await channel.executeThenClose { inbound, outbound in
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {  // reader: the server's reply, if any, then EOF
                    var data = ByteBuffer()
                    for try await var chunk in inbound { data.writeBuffer(&chunk) }
                    let text = String(buffer: data)
                    if text.hasPrefix("HTTP/1.1 503") { stats.refused503.add(1, ordering: .relaxed) }
                    else if !text.isEmpty { stats.otherReply.add(1, ordering: .relaxed) }
                    return true
                }
                group.addTask {  // writer: a partial head, one more header line every 3 s
                    try await outbound.write(ByteBuffer(string:
                        "GET /v2/project/\(apiKey)/session/slow/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"))
                    var line = 0
                    while nowNs() < until, line < 10_000 {
                        try await Task.sleep(for: .seconds(3))
                        try await outbound.write(ByteBuffer(string: "X-Slow-\(slot)-\(line): x\r\n"))
                        line += 1
                    }
                    return false
                }
                let first = try await group.next() ?? false
                group.cancelAll()
                return first
            }
        }) ?? true  // a write failing means the server closed it
        stats.open.add(-1, ordering: .relaxed)
        if closedByServer {
            stats.closedByServer.add(1, ordering: .relaxed)
            stats.heldMs.withLock { $0.append(ms(nowNs() - openedAt)) }
        }
    }
}

/// Normal traffic for `seconds`: alternately a REST GET and a WebSocket connect + signal to self + disconnect,
/// one every `periodMs`. Returns (GET ms, WS connect ms, signal echo ms, failures).
func normalTraffic(_ port: Int, session: String, tokens: [String], seconds: Int, periodMs: Int)
    async -> (gets: [Double], connects: [Double], echoes: [Double], failures: Int) {
    var gets: [Double] = [], connects: [Double] = [], echoes: [Double] = []
    var failures = 0
    let end = nowNs() + Int64(seconds) * 1_000_000_000
    var i = 0
    while nowNs() < end, i < 100_000 {
        let tick = nowNs()
        if i % 2 == 0 {
            do {
                let reply = try await http(port, "GET", "/v2/project/\(apiKey)/session/\(session)/stream",
                                           headers: ["X-TB-PARTNER-AUTH: \(partnerAuth)"], timeout: .seconds(5))
                if reply.status == 200 { gets.append(ms(nowNs() - tick)) } else { failures += 1 }
            } catch { failures += 1 }
        } else {
            let client = Client(index: i, session: session, token: tokens[(i / 2) % tokens.count], port: port,
                                keepLatencies: true)
            client.start()
            if await client.waitConnected(timeout: 5_000_000_000) {
                connects.append(ms(client.connectNs.load(ordering: .relaxed)))
                client.send(signalMessage("echo"))
                let deadline = nowNs() + 5_000_000_000
                while client.deliveries.load(ordering: .relaxed) < 1, nowNs() < deadline {
                    try? await Task.sleep(for: .milliseconds(1))
                }
                if let l = client.latencies.withLock({ $0.first }) { echoes.append(l) } else { failures += 1 }
            } else {
                failures += 1
            }
            client.leave()
            await client.waitEnded()
        }
        i += 1
        let elapsed = (nowNs() - tick) / 1_000_000
        if elapsed < periodMs { try? await Task.sleep(for: .milliseconds(Int(Int64(periodMs) - elapsed))) }
    }
    return (gets, connects, echoes, failures)
}

func slowlorisScenario(server: ServerProcess, count: Int, holdSeconds: Int, headTimeoutMs: Int) async throws {
    let name = "slowloris"
    let port = server.port
    let session = try await createSession(port)
    // Tokens for the normal clients (one per connect is not needed: a token admits any number of connections).
    let tokens = try await bounded(4, width: 4) { _ in try await mintToken(port, session: session) }
    try await Task.sleep(for: .milliseconds(300))
    emitFigures(name, "before", server.figures())

    let baselineSeconds = 8
    let baseline = await normalTraffic(port, session: session, tokens: tokens, seconds: baselineSeconds, periodMs: 40)
    emitDistribution("\(name).baseline_get", baseline.gets)
    emitDistribution("\(name).baseline_ws_connect", baseline.connects)
    emitDistribution("\(name).baseline_signal_echo", baseline.echoes)
    emit("\(name).baseline_failures", Double(baseline.failures), "requests")

    let stats = SlowlorisStats()
    let sampler = PeakSampler()
    let samplerTask = sampler.start(server)
    // Open the slowloris connections, 50 at a time, then hold them (reopening) for the hold period.
    let until = nowNs() + Int64(holdSeconds + 5) * 1_000_000_000
    let slots = Task {
        await withTaskGroup(of: Void.self) { group in
            for slot in 0..<count {
                group.addTask { await slowlorisSlot(port, slot: slot, until: until, stats: stats) }
                if slot % 50 == 49 { try? await Task.sleep(for: .milliseconds(20)) }
            }
        }
    }
    let openStart = nowNs()
    while stats.open.load(ordering: .relaxed) < count, nowNs() - openStart < 10_000_000_000 {
        try await Task.sleep(for: .milliseconds(10))
    }
    emit("\(name).connections_target", Double(count), "connections")
    emit("\(name).open_after_ramp", Double(stats.open.load(ordering: .relaxed)), "connections")
    emit("\(name).ramp_time", ms(nowNs() - openStart), "ms")
    emitFigures(name, "held", server.figures())

    let loaded = await normalTraffic(port, session: session, tokens: tokens, seconds: holdSeconds, periodMs: 40)
    emit("\(name).open_at_end_of_hold", Double(stats.open.load(ordering: .relaxed)), "connections")
    emitDistribution("\(name).get", loaded.gets)
    emitDistribution("\(name).ws_connect", loaded.connects)
    emitDistribution("\(name).signal_echo", loaded.echoes)
    emit("\(name).failures", Double(loaded.failures), "requests")
    let sortedGets = loaded.gets.sorted(), sortedConnects = loaded.connects.sorted()
    emit("\(name).get_p99_vs_50ms", percentile(sortedGets, 0.99) / 50, "ratio")
    emit("\(name).ws_connect_p99_vs_50ms", percentile(sortedConnects, 0.99) / 50, "ratio")
    emit("\(name).get_p99_vs_baseline", percentile(sortedGets, 0.99) / percentile(baseline.gets.sorted(), 0.99), "ratio")
    emit("\(name).ws_connect_p99_vs_baseline",
         percentile(sortedConnects, 0.99) / percentile(baseline.connects.sorted(), 0.99), "ratio")
    let within = percentile(sortedGets, 0.99) <= 50 && percentile(sortedConnects, 0.99) <= 50 && loaded.failures == 0
    note("normal clients served within 50 ms p99 (GET and WebSocket connect) with no failure: \(within ? "yes" : "no")")

    // What the server did with the slowloris connections.
    await slots.value
    sampler.running.store(false, ordering: .relaxed)
    await samplerTask.value
    emit("\(name).request_head_timeout", Double(headTimeoutMs), "ms")
    emit("\(name).opened_total", Double(stats.opened.load(ordering: .relaxed)), "connections")
    emit("\(name).closed_by_server", Double(stats.closedByServer.load(ordering: .relaxed)), "connections")
    emit("\(name).refused_503", Double(stats.refused503.load(ordering: .relaxed)), "connections")
    emit("\(name).other_reply", Double(stats.otherReply.load(ordering: .relaxed)), "connections")
    emit("\(name).connect_failed", Double(stats.connectFailed.load(ordering: .relaxed)), "connections")
    emitDistribution("\(name).held_until_server_closed", stats.heldMs.withLock { $0 })
    emitFigures(name, "peak", sampler.peak.withLock { $0 })
    var after = server.figures()
    for _ in 0..<100 where after.fds > 40 {
        try await Task.sleep(for: .milliseconds(100))
        after = server.figures()
    }
    emitFigures(name, "after", after)
}

// MARK: - Main

let scenario = option("--scenario") ?? "all"
let serverPath = option("--server")
    ?? URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("tokkit-server").path
guard FileManager.default.isExecutableFile(atPath: serverPath) else {
    print("load-bench: no tokkit-server at \(serverPath) (build it: swift build -c release --product tokkit-server)")
    exit(1)
}
let oneClients = intOption("--clients", 500)
let oneSignals = intOption("--signals-one", 2)
let manySessions = intOption("--sessions", 1_000)
let perSession = intOption("--per-session", 4)
let manySignals = intOption("--signals-many", 10)
let slowCount = intOption("--slowloris", 1_000)
let holdSeconds = intOption("--hold", 20)
let connectWidth = intOption("--connect-concurrency", 64)

let ourLimit = raiseDescriptorLimit()
emit("bench.descriptor_limit", Double(ourLimit), "fds")
let needed = max(oneClients, manySessions * perSession, slowCount + 100) + 200
if ourLimit < needed {
    note("this process may open \(ourLimit) descriptors, the scenarios need about \(needed): figures past it will show connect failures")
}

/// The config of a scenario: the caps set just above what it needs (printed by ServerProcess).
func settings(connections: Int, sessions: Int, perSession: Int, headTimeoutMs: Int = 10_000) -> [String: Any] {
    [
        "host": "127.0.0.1", "port": 0, "apiKey": apiKey, "apiSecret": apiSecret,
        "maxConnections": connections, "maxConnectionsPerAddress": connections,
        "maxSessions": sessions, "maxConnectionsPerSession": perSession,
        "quickStart": false,
        // Each client receives every signal of its session: in one session of 500 sending 2 each, up to 1 000
        // signals plus 500 connectionCreated can be queued for one socket; the default outbox (1 024 messages,
        // 1 MiB) would drop a client the load generator is slow to read. Raised, and printed.
        "outboxCapacity": 16_384, "outboxMaxBytes": 16 * 1_048_576,
        "requestHeadTimeoutMs": headTimeoutMs,
    ]
}

do {
    if scenario == "all" || scenario == "one" {
        let server = try ServerProcess(executable: serverPath,
            settings: settings(connections: oneClients + 256, sessions: 16, perSession: oneClients + 16), label: "one")
        defer { server.stop() }
        try await sessionsScenario(name: "one_session", server: server, sessions: 1, perSession: oneClients,
                                   signals: oneSignals, connectWidth: connectWidth)
    }
    if scenario == "all" || scenario == "many" {
        let server = try ServerProcess(executable: serverPath,
            settings: settings(connections: manySessions * perSession + 256, sessions: manySessions + 16,
                               perSession: perSession + 4), label: "many")
        defer { server.stop() }
        try await sessionsScenario(name: "many_sessions", server: server, sessions: manySessions,
                                   perSession: perSession, signals: manySignals, connectWidth: connectWidth)
    }
    if scenario == "all" || scenario == "slowloris" {
        let server = try ServerProcess(executable: serverPath,
            settings: settings(connections: slowCount + 512, sessions: 16, perSession: 64), label: "slowloris")
        defer { server.stop() }
        try await slowlorisScenario(server: server, count: slowCount, holdSeconds: holdSeconds, headTimeoutMs: 10_000)
    }
} catch {
    print("load-bench: \(error)")
    exit(1)
}
