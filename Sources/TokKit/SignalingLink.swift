import HTTPTypes
import Logging
import NIOWebSocket
import Synchronization
import TokKitProtocol
import WSClient

/// Receives what one ``SignalingLink`` reads. Called from the link's task, one call at a time, in order.
protocol SignalingLinkOwner: AnyObject, Sendable {
    /// A message arrived.
    func link(_ link: SignalingLink, received message: ServerMessage)
    /// The socket is gone (`error` says why when it was not a clean close). Called exactly once, last.
    func link(_ link: SignalingLink, closedWith error: SessionError?)
}

/// One WebSocket to the signaling server, from handshake to close: the session's transport.
///
/// `start` opens the socket in a task of its own and sends the hello (`connect` or `resume`) first. Outgoing
/// messages go through a bounded FIFO drained by one writer, so they leave in the order ``send(_:)`` was called.
/// Incoming text messages are decoded and handed to the owner in order. A heartbeat keeps the server's watchdog
/// fed and declares the socket dead when nothing was read for the heartbeat timeout (or, before `connected`,
/// for the connect timeout). Thread-safe; every method may be called from any thread.
final class SignalingLink: Sendable {
    private enum Outgoing: Sendable {
        case text(String)
        case close
    }

    private struct Heartbeat {
        var interval: Duration
        var timeout: Duration
        var established = false
    }

    /// Identifies the link among the session's successive links.
    let generation: UInt64
    private let url: String
    /// Extra header fields of the upgrade request (``SessionSettings/signalingHeaders``).
    private let headers: [String: String]
    private let outgoing: AsyncStream<Outgoing>
    private let outgoingContinuation: AsyncStream<Outgoing>.Continuation
    private let heartbeat: Mutex<Heartbeat>
    /// Nanoseconds of `MonotonicClock` at the last message read.
    private let lastRead = Atomic<Int64>(0)
    private let task = Mutex<Task<Void, Never>?>(nil)
    /// Why the socket ended, when the link found out first (heartbeat timeout, read error).
    private let verdict = Mutex<SessionError?>(nil)
    /// Whether the WebSocket handshake completed.
    private let opened = Atomic<Bool>(false)
    private let logger: Logger

    /// How long a clean close may wait for the server's answer.
    static let closeTimeout: Duration = .seconds(2)

    /// Links whose task has not finished yet, process-wide (for leak checks).
    static var liveCount: Int { live.load(ordering: .relaxed) }
    private static let live = Atomic<Int>(0)

    /// - Parameters:
    ///   - connectTimeout: how long the handshake plus the server's `connected` may take.
    ///   - outgoingLimit: most messages waiting to be written; ``send(_:)`` fails beyond it.
    init(generation: UInt64, url: String, connectTimeout: Duration, outgoingLimit: Int,
         headers: [String: String] = [:], logger: Logger) {
        self.generation = generation
        self.url = url
        self.headers = headers
        self.logger = logger
        (outgoing, outgoingContinuation) = AsyncStream.makeStream(
            of: Outgoing.self, bufferingPolicy: .bufferingOldest(outgoingLimit))
        heartbeat = Mutex(Heartbeat(interval: connectTimeout, timeout: connectTimeout))
    }

    /// Opens the socket and sends `hello` first. The owner hears of every message and, last, of the close.
    func start(hello: String, owner: any SignalingLinkOwner) {
        Self.live.add(1, ordering: .relaxed)
        lastRead.store(MonotonicClock.now().nanoseconds, ordering: .relaxed)
        // The owner is held weakly: a session released while connected is not kept alive by its socket.
        let owner = WeakLinkOwner(value: owner)
        let t = Task { [self] in
            let error = await run(hello: hello, owner: owner)
            outgoingContinuation.finish()
            owner.value?.link(self, closedWith: error)
            Self.live.subtract(1, ordering: .relaxed)
        }
        task.withLock { $0 = t }
    }

    /// Queues `text` for writing. False when the link is closing or its queue is full.
    @discardableResult
    func send(_ text: String) -> Bool {
        if case .enqueued = outgoingContinuation.yield(.text(text)) { return true }
        return false
    }

    /// Switches the watchdog from the connect timeout to the server's heartbeat (after `connected`).
    func established(heartbeatInterval: Duration, heartbeatTimeout: Duration) {
        heartbeat.withLock { $0 = Heartbeat(interval: heartbeatInterval, timeout: heartbeatTimeout, established: true) }
    }

    /// Closes cleanly after the messages already queued have been written.
    func close() {
        outgoingContinuation.yield(.close)
        outgoingContinuation.finish()
    }

    /// Declares the socket dead (the local address it used went away) and tears it down without a close
    /// handshake: the owner sees ``SessionError/connectionDropped``, as after a heartbeat timeout, and resumes.
    func drop() {
        verdict.withLock { $0 = $0 ?? .connectionDropped }
        task.withLock { $0 }?.cancel()
    }

    /// Tears the socket down at once.
    func cancel() {
        outgoingContinuation.finish()
        task.withLock { $0 }?.cancel()
    }

    /// Waits for the link's task to end.
    func wait() async {
        await task.withLock { $0 }?.value
    }

    // MARK: - Task

    private func run(hello: String, owner: WeakLinkOwner) async -> SessionError? {
        var configuration = WebSocketClientConfiguration(
            maxFrameSize: ProtocolLimits.maxFrameBytes, closeTimeout: Self.closeTimeout)
        configuration.validateUTF8 = true
        for (name, value) in headers {
            guard let field = HTTPField.Name(name) else { continue }
            configuration.additionalHeaders[field] = value
        }
        do {
            let client = WebSocketClient(url: url, configuration: configuration, logger: logger) {
                [self] inbound, outbound, _ in
                self.opened.store(true, ordering: .relaxed)
                try await outbound.write(.text(hello))
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await self.writeLoop(outbound) }
                    group.addTask {
                        if let timeout = await self.watchdog() {
                            // The peer is silent: no close handshake to wait for, tear the socket down.
                            self.verdict.withLock { $0 = $0 ?? timeout }
                            self.task.withLock { $0 }?.cancel()
                        }
                    }
                    do {
                        for try await message in inbound.messages(maxSize: ProtocolLimits.maxFrameBytes) {
                            self.lastRead.store(MonotonicClock.now().nanoseconds, ordering: .relaxed)
                            guard case .text(let text) = message else { continue }
                            switch WireCodec.decodeServer(text.utf8) {
                            case .message(let m):
                                guard let owner = owner.value else { return group.cancelAll() }
                                owner.link(self, received: m)
                            case .unknownType: continue  // a newer server: ignore
                            case .malformed(let why): self.logger.warning("malformed server message: \(why)")
                            }
                        }
                    } catch {
                        self.verdict.withLock { $0 = $0 ?? .connectionFailed("socket: \(error)") }
                    }
                    group.cancelAll()
                }
            }
            try await client.run()
        } catch {
            if !opened.load(ordering: .relaxed) {
                return .connectionFailed("cannot open \(url): \(error)")
            }
            verdict.withLock { $0 = $0 ?? .connectionFailed("socket: \(error)") }
        }
        return verdict.withLock { $0 }
    }

    private func writeLoop(_ outbound: WebSocketOutboundWriter) async {
        for await item in outgoing {
            do {
                switch item {
                case .text(let text): try await outbound.write(.text(text))
                case .close:
                    try await outbound.close(.normalClosure, reason: nil)
                    // The server answers with its own close, which ends the reader (and cancels this wait).
                    // If it does not, give up on it.
                    try await Task.sleep(for: Self.closeTimeout)
                    task.withLock { $0 }?.cancel()
                    return
                }
            } catch {
                return
            }
        }
    }

    /// Sends pings and watches reads. Returns the error when the socket is declared dead, nil when cancelled.
    private func watchdog() async -> SessionError? {
        var seq = 0
        while !Task.isCancelled {
            let hb = heartbeat.withLock { $0 }
            let tick = hb.established ? hb.interval : min(hb.timeout, .milliseconds(250))
            do { try await Task.sleep(for: tick) } catch { return nil }
            let now = MonotonicClock.now().nanoseconds
            let current = heartbeat.withLock { $0 }
            let silent = Duration.nanoseconds(now - lastRead.load(ordering: .relaxed))
            if silent > current.timeout {
                return current.established ? .connectionDropped : .connectionTimeout
            }
            if current.established {
                seq += 1
                send(Self.encodePing(seq))
            }
        }
        return nil
    }

    private static func encodePing(_ seq: Int) -> String {
        "{\"type\":\"ping\",\"seq\":\(seq)}"
    }
}

/// A weak reference to a link's owner, safe to capture in the link's task.
struct WeakLinkOwner: Sendable {
    weak let value: (any SignalingLinkOwner)?
}
