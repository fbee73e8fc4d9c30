import Foundation
import HTTPTypes
import Logging
import NIOWebSocket
import Synchronization
import WSClient

/// One connection to one Janus instance over its WebSocket transport (subprotocol `janus-protocol`): the Janus API
/// as request/reply calls, and Janus's asynchronous events routed to the handle they are about.
///
/// Why WebSocket rather than HTTP long-poll: one socket carries every request, reply and event in order, with no
/// poll to keep outstanding per session; a Janus that stops or dies closes it at once, so pending requests fail
/// and event streams end immediately rather than at the next poll's timeout; and Janus ties the sessions created
/// on a socket to it (`reclaim_session_timeout` 0), so if the session server dies, Janus frees its rooms' handles
/// by itself.
///
/// Requests carry a random transaction id and are matched to their reply by it. Each one waits at most its
/// deadline (``Options/requestTimeout`` unless given), and fails with a ``JanusError``: Janus's error code and
/// reason, a timeout, the transport closing, a malformed reply, or the caller's task being cancelled. A plugin
/// message answered with `ack` waits (within the same deadline) for the plugin's `event` carrying its
/// transaction. Messages that are not replies go to the handle named by their `sender`
/// (``JanusHandle/events``). Nothing Janus sends is trusted: a frame that is not a JSON object with a `janus`
/// member is counted (``malformedMessages``) and dropped; a reply missing what its request needs fails that
/// request with ``JanusError/malformedReply(_:)``.
///
/// Lifetime: the connection lives until ``close()`` or until the transport closes; then every pending request
/// fails with ``JanusError/transportClosed(_:)``, every session's keepalive stops and every handle's event stream
/// ends.
///
/// Threading: any method from any task. The socket runs in one task (NIO underneath); state is one `Mutex` with an
/// explicit phase; replies resume the waiting caller; nothing blocks a thread.
public final class JanusConnection: Sendable {
    /// How to connect and how long to wait.
    public struct Options: Sendable, Hashable {
        /// The `apisecret` Janus was started with (``JanusProcessConfiguration/apiSecret``), sent in every request.
        public var apiSecret: String?
        /// How long ``JanusConnection/connect(to:options:logger:)`` waits for the socket and Janus's `info` reply.
        public var connectTimeout: Duration
        /// The default deadline of each request.
        public var requestTimeout: Duration
        /// Largest message accepted from Janus.
        public var maxMessageSize: Int
        /// Most bytes of requests queued for the socket and not yet taken by its writer. A Janus that stops reading
        /// (paused, wedged) makes the writer wait; past this the connection closes with
        /// ``JanusError/unreachable(url:reason:)`` instead of growing memory without bound.
        public var maxQueuedBytes: Int

        /// Options; the defaults: no secret, 5 s to connect, 10 s per request, messages up to 4 MiB, 8 MiB queued.
        public init(apiSecret: String? = nil, connectTimeout: Duration = .seconds(5),
                    requestTimeout: Duration = .seconds(10), maxMessageSize: Int = 1 << 22,
                    maxQueuedBytes: Int = 8 << 20) {
            self.apiSecret = apiSecret
            self.connectTimeout = connectTimeout
            self.requestTimeout = requestTimeout
            self.maxMessageSize = maxMessageSize
            self.maxQueuedBytes = maxQueuedBytes
        }
    }

    /// What ends a request.
    enum Expectation {
        /// `success` (or `server_info`) or `error`.
        case success
        /// `ack`, `success` or `error` (keepalive, trickle).
        case ack
        /// A plugin message: `success` (synchronous request) or `ack` then `event` with the same transaction.
        case pluginReply
    }

    private struct Pending {
        let request: String
        let expectation: Expectation
        let continuation: CheckedContinuation<Result<JanusIncoming, JanusError>, Never>
        var timer: Task<Void, Never>?
    }

    private enum Phase {
        case connecting
        case open
        case closed(JanusError)
    }

    private struct HandleRoute {
        let session: UInt64
        let continuation: AsyncStream<JanusEvent>.Continuation
    }

    private struct State {
        var phase = Phase.connecting
        var pending: [String: Pending] = [:]
        var handles: [UInt64: HandleRoute] = [:]
        /// Live sessions and their keepalive tasks.
        var sessions: [UInt64: Task<Void, Never>?] = [:]
        /// Each live session's end signal (``JanusSession/ended()``): gets the reason, then finishes.
        var sessionEnds: [UInt64: JanusSessionEnd] = [:]
        /// Bytes of requests in `outgoing` not yet taken by the socket's writer.
        var queuedBytes = 0
        var openWaiters: [CheckedContinuation<Result<Void, JanusError>, Never>] = []
        var malformed = 0
        var serverInfo: JanusServerInfo?
    }

    /// Events buffered per handle before the oldest are dropped (a handle's consumer that stops reading loses
    /// events, never blocks the connection).
    public static let eventBufferSize = 256

    /// The instance's WebSocket URL (`ws://host:port`).
    public let url: String
    /// The options it was made with.
    public let options: Options
    private let logger: Logger
    private let state = Mutex(State())
    private let outgoing: AsyncStream<String>
    private let outgoingContinuation: AsyncStream<String>.Continuation
    private let socket = Mutex<Task<Void, Never>?>(nil)

    private init(url: String, options: Options, logger: Logger) {
        self.url = url
        self.options = options
        self.logger = logger
        (outgoing, outgoingContinuation) = AsyncStream.makeStream(of: String.self)
    }

    /// Connects to the Janus instance at `url` (`ws://host:8188`) and checks that it is Janus (an `info` request),
    /// all within ``Options/connectTimeout``. Throws ``JanusError/unreachable(url:reason:)`` if it cannot.
    public static func connect(to url: String, options: Options = Options(),
                               logger: Logger = Logger(label: "tokkit.janus")) async throws(JanusError)
        -> JanusConnection {
        let connection = JanusConnection(url: url, options: options, logger: logger)
        let deadline = ContinuousClock.now + options.connectTimeout
        connection.socket.withLock { $0 = Task { await connection.run() } }
        let timer = Task {
            guard (try? await Task.sleep(until: deadline)) != nil else { return }
            connection.fail(.unreachable(url: url, reason: "no WebSocket within \(options.connectTimeout)"),
                            cancelSocket: true)
        }
        let opened = await withCheckedContinuation { (k: CheckedContinuation<Result<Void, JanusError>, Never>) in
            let now: Result<Void, JanusError>? = connection.state.withLock { s in
                switch s.phase {
                case .open: return .success(())
                case .closed(let why): return .failure(why)
                case .connecting:
                    s.openWaiters.append(k)
                    return nil
                }
            }
            if let now { k.resume(returning: now) }
        }
        timer.cancel()
        do throws(JanusError) {
            try opened.get()
            let remaining = deadline - ContinuousClock.now
            let info = try await connection.info(timeout: max(remaining, .milliseconds(1)))
            connection.state.withLock { $0.serverInfo = info }
            return connection
        } catch {
            // Not waiting for the socket: a TCP connect still under way ends by itself.
            connection.outgoingContinuation.finish()
            connection.fail(.transportClosed("connect failed"), cancelSocket: true)
            switch error {
            case .unreachable: throw error
            default: throw .unreachable(url: url, reason: "\(error)")
            }
        }
    }

    /// What Janus said about itself when the connection was made.
    public var serverInfo: JanusServerInfo? { state.withLock { $0.serverInfo } }

    /// Whether the connection is closed (by ``close()`` or by the transport).
    public var isClosed: Bool {
        state.withLock { if case .closed = $0.phase { true } else { false } }
    }

    /// Why it closed, once closed.
    public var closeReason: JanusError? {
        state.withLock { if case .closed(let why) = $0.phase { why } else { nil } }
    }

    /// Frames from Janus that were dropped because they were not a Janus API message.
    public var malformedMessages: Int { state.withLock { $0.malformed } }

    /// Asks Janus about itself (`info`).
    public func info(timeout: Duration? = nil) async throws(JanusError) -> JanusServerInfo {
        let reply = try await send("info", expect: .success, timeout: timeout)
        guard reply.kind == "server_info" else {
            throw .malformedReply("info answered with \(reply.kind)")
        }
        return try JanusServerInfo(reply.message)
    }

    /// Creates a Janus session and starts its keepalive (`keepalive` every `keepaliveInterval`, at most 25 s; Janus
    /// ends sessions silent for `session_timeout`, 60 s by default).
    public func createSession(keepaliveInterval: Duration = .seconds(25)) async throws(JanusError) -> JanusSession {
        let reply = try await send("create", expect: .success)
        guard reply.kind == "success", let id = reply.message["data"]?["id"]?.id else {
            throw .malformedReply("create without data.id: \(JanusJSON.excerpt(reply.message.jsonText))")
        }
        let interval = min(max(keepaliveInterval, .milliseconds(10)), .seconds(25))
        let end = JanusSessionEnd()
        let admitted = state.withLock { s in
            guard case .open = s.phase else { return false }
            s.sessions[id] = .some(nil)
            s.sessionEnds[id] = end
            return true
        }
        guard admitted else { throw closeReason ?? .transportClosed("closed") }
        let session = JanusSession(id: id, connection: self, end: end)
        let keepalive = Task { [weak self] in
            guard let self else { return }
            await self.keepalive(session: id, every: interval)
        }
        let kept = state.withLock { s in
            guard s.sessions[id] != nil else { return false }
            s.sessions[id] = keepalive
            return true
        }
        if !kept { keepalive.cancel() }
        return session
    }

    /// Sends a raw Janus API request (`{"janus": kind, …fields}`), for requests TokKit has no typed call for (and
    /// for tests of how Janus refuses requests). Returns the final reply message; a core `error` throws
    /// ``JanusError/janus(code:reason:)``.
    public func rawRequest(_ kind: String, _ fields: [String: JanusJSON] = [:], timeout: Duration? = nil)
        async throws(JanusError) -> JanusJSON {
        try await send(kind, fields, expect: .success, timeout: timeout).message
    }

    /// Closes the connection: pending requests fail with ``JanusError/transportClosed(_:)``, event streams end,
    /// keepalives stop; Janus then destroys the sessions made on it. Idempotent; returns once the socket is gone, or
    /// after a second (a TCP connect still under way is not interrupted by cancellation: it ends by itself).
    public func close() async {
        outgoingContinuation.finish()
        fail(.transportClosed("closed by TokKit"), cancelSocket: false)
        guard let task = socket.withLock({ $0 }) else { return }
        let cancelLater = Task {
            guard (try? await Task.sleep(for: .seconds(1))) != nil else { return }
            task.cancel()
        }
        await Self.wait(for: task, atMost: .milliseconds(1_500))
        cancelLater.cancel()
    }

    /// Waits until `task` ends or `limit` passes, whichever comes first.
    private static func wait(for task: Task<Void, Never>, atMost limit: Duration) async {
        final class Once: Sendable {
            let continuation = Mutex<CheckedContinuation<Void, Never>?>(nil)
            func resume() { continuation.withLock { $0.take() }?.resume() }
        }
        let once = Once()
        await withCheckedContinuation { (k: CheckedContinuation<Void, Never>) in
            once.continuation.withLock { $0 = k }
            Task {
                await task.value
                once.resume()
            }
            Task {
                try? await Task.sleep(for: limit)
                once.resume()
            }
        }
    }

    // MARK: - Requests (JanusSession and JanusHandle use these)

    /// Sends one request and waits for its final reply. `session` and `handle` are added as `session_id` and
    /// `handle_id`; a session or handle known to be gone fails at once.
    func send(_ kind: String, _ fields: [String: JanusJSON] = [:], session: UInt64? = nil, handle: UInt64? = nil,
              expect: Expectation, timeout: Duration? = nil) async throws(JanusError) -> JanusIncoming {
        let timeout = timeout ?? options.requestTimeout
        var message = fields
        message["janus"] = .string(kind)
        if let session { message["session_id"] = .id(session) }
        if let handle { message["handle_id"] = .id(handle) }
        if let secret = options.apiSecret { message["apisecret"] = .string(secret) }
        let label = fields["body"]?["request"]?.string.map { "\(kind) \($0)" } ?? kind
        let transaction = Self.newTransaction()
        message["transaction"] = .string(transaction)
        let text = JanusJSON.object(message).jsonText

        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (k: CheckedContinuation<Result<JanusIncoming, JanusError>, Never>) in
                let refused: JanusError? = state.withLock { s in
                    // A task cancelled before it got here has already run `onCancel`, which found nothing to
                    // complete: without this check the request would wait for its reply or its timeout. (A cancel
                    // from now on finds the request pending: `complete` takes this lock.)
                    if Task.isCancelled { return .cancelled }
                    switch s.phase {
                    case .closed(let why): return why
                    case .connecting where kind != "info": return .transportClosed("not connected yet")
                    default: break
                    }
                    if let session, s.sessions[session] == nil { return .sessionClosed(session) }
                    if let handle, s.handles[handle] == nil { return .handleDetached(handle) }
                    s.pending[transaction] = Pending(request: label, expectation: expect, continuation: k)
                    return nil
                }
                if let refused { return k.resume(returning: .failure(refused)) }
                let timer = Task { [weak self] in
                    guard (try? await Task.sleep(for: timeout)) != nil else { return }
                    self?.complete(transaction, .failure(.timeout(request: label, after: timeout)))
                }
                let stillPending = state.withLock { s in
                    guard s.pending[transaction] != nil else { return false }
                    s.pending[transaction]?.timer = timer
                    return true
                }
                if !stillPending { timer.cancel() }
                enqueue(text)
            }
        } onCancel: {
            complete(transaction, .failure(.cancelled))
        }
        let reply = try result.get()
        if reply.kind == "error" { throw reply.error }
        return reply
    }

    /// Queues `text` for the socket's writer, within ``Options/maxQueuedBytes``: past it, Janus has stopped reading
    /// and the connection closes (``JanusError/unreachable(url:reason:)``); the request then fails with that reason.
    private func enqueue(_ text: String) {
        let size = text.utf8.count
        let queued = state.withLock { s -> Int? in
            guard s.queuedBytes + size <= options.maxQueuedBytes else { return s.queuedBytes }
            s.queuedBytes += size
            return nil
        }
        if let queued {
            logger.warning("janus: \(queued) bytes of requests queued and unsent: closing the connection")
            fail(.unreachable(url: url, reason: "Janus stopped reading its socket (\(queued) bytes of requests unsent)"),
                 cancelSocket: true)
            return
        }
        outgoingContinuation.yield(text)
    }

    /// The socket's writer took `text` off the queue.
    private func dequeued(_ text: String) {
        let size = text.utf8.count
        state.withLock { $0.queuedBytes = max(0, $0.queuedBytes - size) }
    }

    /// Registers a handle's event stream (after a successful `attach`).
    func register(handle: UInt64, session: UInt64) -> AsyncStream<JanusEvent>? {
        let (stream, continuation) = AsyncStream.makeStream(of: JanusEvent.self,
                                                            bufferingPolicy: .bufferingNewest(Self.eventBufferSize))
        let ok = state.withLock { s in
            guard case .open = s.phase, s.sessions[session] != nil else { return false }
            s.handles[handle] = HandleRoute(session: session, continuation: continuation)
            return true
        }
        if !ok {
            continuation.finish()
            return nil
        }
        return stream
    }

    /// The handle is gone (detached by request or by Janus): its stream gets ``JanusEvent/detached`` and ends.
    func handleEnded(_ handle: UInt64) {
        guard let route = state.withLock({ $0.handles.removeValue(forKey: handle) }) else { return }
        route.continuation.yield(.detached)
        route.continuation.finish()
    }

    /// The session is gone (destroyed, or timed out by Janus): its keepalive stops, its handles' streams end, its
    /// ``JanusSession/ended()`` returns `reason`.
    func sessionEnded(_ session: UInt64, reason: JanusError? = nil) {
        let (keepalive, routes, end) = state.withLock {
            s -> (Task<Void, Never>??, [HandleRoute], JanusSessionEnd?) in
            let task = s.sessions.removeValue(forKey: session)
            let ids = s.handles.filter { $0.value.session == session }.map(\.key)
            return (task, ids.compactMap { s.handles.removeValue(forKey: $0) }, s.sessionEnds.removeValue(forKey: session))
        }
        keepalive??.cancel()
        for route in routes { route.continuation.finish() }
        end?.signal(reason ?? .sessionClosed(session))
    }

    func isLive(session: UInt64) -> Bool { state.withLock { $0.sessions[session] != nil } }
    func isLive(handle: UInt64) -> Bool { state.withLock { $0.handles[handle] != nil } }

    // MARK: - Keepalive

    /// Keepalives of one session failing in a row (no reply within the request deadline, or an error) after which
    /// the session counts as ended (``JanusSession/ended()``): a paused Janus sends no `timeout` event.
    static let maxKeepaliveFailures = 3

    private func keepalive(session: UInt64, every interval: Duration) async {
        var failures = 0
        while !Task.isCancelled {
            guard (try? await Task.sleep(for: interval)) != nil else { return }
            do throws(JanusError) {
                _ = try await send("keepalive", session: session, expect: .ack)
                failures = 0
            } catch {
                switch error {
                case .janus(let code, _) where code == JanusErrorCode.sessionNotFound:
                    logger.warning("janus session \(session) is gone")
                    sessionEnded(session, reason: error)
                    return
                case .transportClosed, .sessionClosed, .cancelled: return
                default:
                    // One slow reply is not a dead session: the next keepalive tries again. But a Janus that is
                    // paused (stopped) sends nothing, not even its own `timeout` event, so after a few failures in a
                    // row the session is given up here.
                    failures += 1
                    let count = "\(failures) of \(Self.maxKeepaliveFailures) in a row"
                    logger.warning("janus keepalive of session \(session) failed (\(count)): \(error)")
                    guard failures < Self.maxKeepaliveFailures else {
                        sessionEnded(session, reason: error)
                        return
                    }
                }
            }
        }
    }

    // MARK: - Socket

    private func run() async {
        var configuration = WebSocketClientConfiguration(maxFrameSize: options.maxMessageSize,
                                                         closeTimeout: .seconds(1))
        if let name = HTTPField.Name("Sec-WebSocket-Protocol") {
            configuration.additionalHeaders[name] = "janus-protocol"
        }
        let maxSize = options.maxMessageSize
        do {
            let closeFrame = try await WebSocketClient.connect(url: url, configuration: configuration,
                                                               logger: logger) { inbound, outbound, _ in
                self.opened()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await text in self.outgoing {
                            self.dequeued(text)
                            try await outbound.write(.text(text))
                        }
                        if !Task.isCancelled { try await outbound.close(.normalClosure, reason: nil) }
                    }
                    for try await message in inbound.messages(maxSize: maxSize) {
                        if case .text(let text) = message { self.dispatch(text) }
                    }
                    group.cancelAll()
                }
            }
            let code = closeFrame.map { " (close code \($0.closeCode))" } ?? ""
            fail(.transportClosed("Janus closed the WebSocket\(code)"), cancelSocket: false)
        } catch {
            let opened = state.withLock { if case .connecting = $0.phase { false } else { true } }
            fail(opened ? .transportClosed("socket: \(error)") : .unreachable(url: url, reason: "\(error)"),
                 cancelSocket: false)
        }
    }

    private func opened() {
        let waiters = state.withLock { s -> [CheckedContinuation<Result<Void, JanusError>, Never>] in
            guard case .connecting = s.phase else { return [] }
            s.phase = .open
            defer { s.openWaiters = [] }
            return s.openWaiters
        }
        for waiter in waiters { waiter.resume(returning: .success(())) }
    }

    /// Handles one text frame from Janus.
    func dispatch(_ text: String) {
        let incoming: JanusIncoming
        do {
            incoming = try JanusIncoming(parsing: text)
        } catch {
            state.withLock { $0.malformed += 1 }
            logger.warning("janus: dropped a frame: \(error)")
            return
        }
        if let transaction = incoming.transaction, resolve(transaction, incoming) { return }
        route(incoming)
    }

    /// Completes the pending request `transaction` if `incoming` ends it; true if it was its reply.
    private func resolve(_ transaction: String, _ incoming: JanusIncoming) -> Bool {
        guard let expectation = state.withLock({ $0.pending[transaction]?.expectation }) else { return false }
        switch (incoming.kind, expectation) {
        case ("error", _), ("success", _), ("server_info", _), ("ack", .ack), ("event", .pluginReply):
            complete(transaction, .success(incoming))
            return true
        case ("ack", _):
            return true  // the plugin's event follows with the same transaction
        default:
            return false
        }
    }

    /// Delivers an event to the handle (or session) it is about.
    private func route(_ incoming: JanusIncoming) {
        if incoming.kind == "timeout", let session = incoming.sessionID {
            logger.warning("janus timed out session \(session)")
            sessionEnded(session, reason: .sessionClosed(session))
            return
        }
        guard let sender = incoming.sender else {
            if incoming.kind != "ack" {
                logger.debug("janus: \(incoming.kind) for no handle: \(JanusJSON.excerpt(incoming.message.jsonText))")
            }
            return
        }
        let event: JanusEvent
        do {
            event = try incoming.event()
        } catch {
            state.withLock { $0.malformed += 1 }
            logger.warning("janus: dropped an event: \(error)")
            return
        }
        if case .detached = event { return handleEnded(sender) }
        _ = state.withLock { $0.handles[sender] }?.continuation.yield(event)
    }

    private func complete(_ transaction: String, _ result: Result<JanusIncoming, JanusError>) {
        guard let pending = state.withLock({ $0.pending.removeValue(forKey: transaction) }) else { return }
        pending.timer?.cancel()
        pending.continuation.resume(returning: result)
    }

    /// Closes the connection for `why` (first reason wins): fails every pending request and open waiter, ends
    /// every event stream and keepalive.
    private func fail(_ why: JanusError, cancelSocket: Bool) {
        let taken = state.withLock { s -> ([Pending], [HandleRoute], [Task<Void, Never>], [CheckedContinuation<Result<Void, JanusError>, Never>], [JanusSessionEnd], JanusError) in
            if case .closed(let first) = s.phase {
                return ([], [], [], [], [], first)
            }
            s.phase = .closed(why)
            defer {
                s.pending = [:]
                s.handles = [:]
                s.sessions = [:]
                s.sessionEnds = [:]
                s.openWaiters = []
                s.queuedBytes = 0
            }
            return (Array(s.pending.values), Array(s.handles.values), s.sessions.values.compactMap { $0 },
                    s.openWaiters, Array(s.sessionEnds.values), why)
        }
        let (pending, routes, keepalives, waiters, ends, reason) = taken
        outgoingContinuation.finish()
        for p in pending {
            p.timer?.cancel()
            p.continuation.resume(returning: .failure(reason))
        }
        for waiter in waiters { waiter.resume(returning: .failure(reason)) }
        for route in routes { route.continuation.finish() }
        for end in ends { end.signal(reason) }
        for task in keepalives { task.cancel() }
        if cancelSocket { socket.withLock { $0 }?.cancel() }
    }

    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")

    /// A random 16-character transaction id.
    static func newTransaction() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<16).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }
}

/// What a Janus instance says about itself (`info`).
public struct JanusServerInfo: Sendable, Hashable {
    /// e.g. 1102.
    public var version: Int
    /// e.g. "1.1.2".
    public var versionString: String
    /// The server name (`server_name`).
    public var name: String
    /// Plugin packages loaded (e.g. `janus.plugin.videoroom`).
    public var plugins: [String]
    /// Transport packages loaded (e.g. `janus.transport.websockets`).
    public var transports: [String]
    /// Seconds of silence after which Janus ends a session, if it says.
    public var sessionTimeout: Int?

    init(_ message: JanusJSON) throws(JanusError) {
        guard let version = message["version"]?.integer, let versionString = message["version_string"]?.string else {
            throw .malformedReply("server_info without version: \(JanusJSON.excerpt(message.jsonText))")
        }
        self.version = Int(version)
        self.versionString = versionString
        self.name = message["name"]?.string ?? ""
        self.plugins = (message["plugins"]?.object?.keys).map { $0.sorted() } ?? []
        self.transports = (message["transports"]?.object?.keys).map { $0.sorted() } ?? []
        self.sessionTimeout = message["session-timeout"]?.integer.map { Int($0) }
    }
}
