import Dispatch
import struct FoundationEssentials.URL
import Logging
import Synchronization
import TokKitICE
import TokKitProtocol

/// A client's membership in one TokKit session, as the SDK's `OTSession`: connect with a token, see the other
/// connections and their streams, publish, subscribe, and exchange signals.
///
/// ```swift
/// let session = Session(apiKey: key, sessionID: SessionID(id), serverURL: URL(string: "http://127.0.0.1:8080")!)
/// try await session.connect(token: token)
/// for await event in session.events { … }
/// ```
///
/// ## States
/// ``sessionConnectionStatus`` follows ``SessionConnectionStatus``: `connect` moves it from `notConnected` (or
/// `failed`) through `connecting` to `connected`; a dropped WebSocket to `reconnecting` and back to `connected`
/// (same ``connection``, within the server's grace period) or to `notConnected`; `disconnect` through
/// `disconnecting` to `notConnected`.
///
/// ## Events
/// Every event goes both to the ``delegate`` and to every ``events`` stream, in the same order. Delegate methods
/// (and those of publisher and subscriber delegates) run on ``delegateQueue``, a serial `DispatchQueue`.
///
/// ## Threading
/// Thread-safe: every property and method may be used from any thread or task. The network runs in tasks of its
/// own; state is guarded by one lock, so properties read a consistent snapshot.
public final class Session: Sendable {
    /// The API key of the project the session belongs to, as given to the initializer.
    public let apiKey: String
    /// The session to join, as given to the initializer (the SDK's `sessionId`).
    public let sessionID: SessionID
    /// The server, e.g. `http://127.0.0.1:8080` (its signaling socket is `ws://127.0.0.1:8080/signaling`), or the
    /// signaling WebSocket URL itself.
    public let serverURL: URL
    /// Timeouts, reconnect policy, limits, ICE servers and the logger, fixed at creation.
    public let settings: SessionSettings

    let state = Mutex(SessionState())
    let hub: EventHub
    private let delegateBox: Mutex<WeakSessionDelegate>
    private let negotiatorBox: Mutex<any MediaNegotiator>
    /// Where ``MediaNegotiator`` methods run, one at a time.
    let negotiationQueue: DispatchQueue
    var logger: Logger { settings.logger }

    /// A session to join; nothing happens on the network until ``connect(token:)``.
    ///
    /// - Parameters:
    ///   - apiKey: the API key of the project the session belongs to (the server's `apiKey`).
    ///   - sessionID: the session to join, as the server created it.
    ///   - serverURL: the session server's HTTP address, e.g. `http://127.0.0.1:8080` (the signaling socket is
    ///     `ws://…/signaling`), or the signaling WebSocket URL itself.
    ///   - delegate: receives the session's events; held weakly. May be set later through ``delegate``.
    ///   - delegateQueue: where delegate methods run; nil creates a private serial queue for this session.
    ///   - settings: timeouts, reconnect policy, buffer limits, ICE servers and the logger.
    public init(
        apiKey: String, sessionID: SessionID, serverURL: URL, delegate: (any SessionDelegate)? = nil,
        delegateQueue: DispatchQueue? = nil, settings: SessionSettings = SessionSettings()
    ) {
        self.apiKey = apiKey
        self.sessionID = sessionID
        self.serverURL = serverURL
        self.settings = settings
        hub = EventHub(
            queue: delegateQueue ?? DispatchQueue(label: "TokKit.Session.delegate"),
            bufferLimit: max(1, settings.eventBufferLimit))
        delegateBox = Mutex(WeakSessionDelegate(delegate))
        negotiatorBox = Mutex(WebRTCNegotiator())
        negotiationQueue = DispatchQueue(label: "TokKit.Session.negotiation")
    }

    deinit {
        let (link, task) = state.withLock { ($0.link, $0.reconnectTask) }
        link?.cancel()
        task?.cancel()
        hub.finish()
    }

    // MARK: - Observing

    /// Receives the session's events (held weakly), on ``delegateQueue``.
    public var delegate: (any SessionDelegate)? {
        get { delegateBox.withLock { $0.value } }
        set { delegateBox.withLock { $0 = WeakSessionDelegate(newValue) } }
    }

    /// The serial queue delegate methods run on. Changing it affects events emitted afterwards.
    public var delegateQueue: DispatchQueue {
        get { hub.queue }
        set { hub.queue = newValue }
    }

    /// A new stream of every event from now on (each access makes a new one; many may be open at once). It ends
    /// when the session is released; cancel the iterating task to stop earlier.
    public var events: AsyncStream<SessionEvent> { hub.makeStream() }

    /// The WebRTC hook that negotiates media for subscriptions. Set it before connecting.
    public var mediaNegotiator: any MediaNegotiator {
        get { negotiatorBox.withLock { $0 } }
        set { negotiatorBox.withLock { $0 = newValue } }
    }

    /// `base` (the negotiator's host gathering) with the STUN/TURN servers and transport policy this session's
    /// media connections use: the session server's servers from the last `connected` unless
    /// ``SessionICEConfiguration/includeServers`` is `custom`, then the settings' own.
    ///
    /// Host names come back as the numeric addresses resolved when the session connected
    /// (``resolveICEHostNames(_:)``), so making the agent looks nothing up.
    func iceConfiguration(base: ICEConfiguration) -> ICEConfiguration {
        var ice = base
        let (servers, resolved, unresolvable) = state.withLock { s in (iceServers(s), s.resolvedHosts, s.unresolvableHosts) }
        ice.servers += servers.compactMap { $0.replacingHostNames(resolved, removing: unresolvable) }
        if settings.ice.transportPolicy == .relay { ice.transportPolicy = .relay }
        return ice
    }

    /// The session server's ICE servers (unless the settings leave them out), then the settings' own.
    private func iceServers(_ s: SessionState) -> [ICEServer] {
        (settings.ice.includeServers == .all ? s.iceServers : []) + settings.ice.customServers
    }

    /// Starts resolving the ICE servers' host names not resolved yet, on ``ICEHostResolver``'s queue (`getaddrinfo`
    /// blocks). ``publish(_:)`` and ``subscribe(_:)`` wait for it, at most ``iceResolutionLimit``, before any media
    /// connection is made; a name that does not resolve is logged and left out of media connections (looking it
    /// up again would block the negotiation queue for the resolver's whole timeout).
    func resolveICEHostNames(_ s: inout SessionState) {
        let names = iceServers(s).reduce(into: Set<String>()) { $0.formUnion($1.hostNames) }
            .subtracting(s.resolvedHosts.keys).subtracting(s.unresolvableHosts)
        guard !names.isEmpty else { return }
        let previous = s.iceResolution
        s.iceResolutionsRunning += 1
        s.iceResolution = Task { [weak self, logger] in
            defer { self?.state.withLock { $0.iceResolutionsRunning -= 1 } }
            await previous?.value
            await withTaskGroup(of: Void.self) { group in
                for name in names {
                    group.addTask { [weak self] in
                        do throws(ICEError) {
                            let address = try await ICEHostResolver.numericAddress(of: name)
                            self?.state.withLock { $0.resolvedHosts[name] = address }
                        } catch {
                            logger.warning("ICE server host \(name) did not resolve and is left out: \(error)")
                            self?.state.withLock { _ = $0.unresolvableHosts.insert(name) }
                        }
                    }
                }
            }
        }
    }

    /// How long media setup waits for ICE server names to resolve.
    static let iceResolutionLimit: Duration = .seconds(5)

    /// Returns once the ICE server names known so far are resolved or given up on, or after
    /// ``iceResolutionLimit``, whichever comes first (a lookup cannot be cancelled: it goes on, and its answer is
    /// still used by later connections).
    func iceHostNamesResolved() async {
        guard let resolution = state.withLock({ $0.iceResolutionsRunning > 0 ? $0.iceResolution : nil }) else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let once = Mutex<CheckedContinuation<Void, Never>?>(done)
            let finish: @Sendable () -> Void = { once.withLock { c in c.take() }?.resume() }
            let limit = Task { try? await Task.sleep(for: Self.iceResolutionLimit); finish() }
            Task { await resolution.value; finish(); limit.cancel() }
        }
    }

    // MARK: - State

    /// Where the session is in its life; see ``SessionConnectionStatus`` for the transitions.
    public var sessionConnectionStatus: SessionConnectionStatus { state.withLock { $0.status } }

    /// This client's own connection, while connected (kept while reconnecting).
    public var connection: Connection? { state.withLock { $0.status == .connected || $0.status == .reconnecting ? $0.me : nil } }

    /// The other clients' connections, in the order they joined.
    public var connections: [Connection] {
        state.withLock { s in s.connectionOrder.compactMap { s.connections[$0] } }
    }

    /// How many other clients are connected.
    public var connectionCount: Int { state.withLock { $0.connections.count } }

    /// The other clients' streams, by stream id (this client's own are its publishers' ``Publisher/stream``).
    public var streams: [StreamID: SessionStream] {
        state.withLock { s in
            let me = s.me?.connectionID
            return s.streams.filter { $0.value.connection.connectionID != me }
        }
    }

    /// Requests waiting for the server's answer (signals held while reconnecting included).
    var pendingRequestCount: Int { state.withLock { $0.pending.count } }

    /// Heartbeat answers received from the server so far.
    var pongsReceived: Int { state.withLock { $0.pongs } }

    /// What this client's role allows; ``SessionCapabilities/none`` unless connected.
    public var capabilities: SessionCapabilities { state.withLock { $0.capabilities } }

    // MARK: - Connecting

    /// Connects to the session with `token` and returns once connected. The ``SessionEvent/connected(_:)`` event
    /// (and the existing connections and streams) are reported before it returns.
    ///
    /// Throws ``SessionError/authorizationFailure(_:)`` (1004) for a refused token,
    /// ``SessionError/invalidSession(_:)`` (1005), ``SessionError/connectionFailed(_:cause:)`` (1006) when the server
    /// cannot be reached, ``SessionError/connectionTimeout`` (1021), or ``SessionError/illegalState(_:)`` when not
    /// `notConnected`/`failed`. A failure is also reported as ``SessionEvent/failed(_:)``.
    public func connect(token: String) async throws(SessionError) {
        guard !token.isEmpty else { throw .invalidParameter("token is empty") }
        let url = try SignalingURL.make(from: serverURL)
        let hello = Self.encode(ClientRequest(.connect(.init(apiKey: apiKey, sessionID: sessionID.rawValue, token: token))))
        let result = await open(hello: hello, url: url, resuming: false)
        if case .failure(let error) = result { throw error }
    }

    /// Leaves the session and returns once disconnected: publishers are unpublished, subscribers end, and
    /// ``SessionEvent/disconnected`` is reported. Does nothing when not connected. Bounded: if the server does not
    /// close the socket within about two seconds, the socket is torn down.
    public func disconnect() async {
        enum Step { case done, wait(SignalingLink?), abandonReconnect(Task<Void, Never>?) }
        let step: Step = state.withLock { s in
            switch s.status {
            case .notConnected, .failed:
                return .done
            case .disconnecting:
                return .wait(nil)
            case .connecting:
                s.status = .disconnecting
                return .wait(s.link)
            case .connected:
                s.status = .disconnecting
                if let link = s.link {
                    link.send(Self.encode(ClientRequest(.disconnect)))
                    link.close()
                }
                return .wait(nil)
            case .reconnecting:
                s.status = .disconnecting
                defer { s.reconnectTask = nil }
                return .abandonReconnect(s.reconnectTask)
            }
        }
        switch step {
        case .done:
            return
        case .wait(let toCancel):
            toCancel?.cancel()
        case .abandonReconnect(let task):
            task?.cancel()
            let link = state.withLock { s -> SignalingLink? in
                defer { s.link = nil }
                return s.link
            }
            link?.cancel()
            finishDisconnect(generation: nil)
        }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let done = state.withLock { s in
                if s.status == .notConnected || s.status == .failed { return true }
                s.disconnectWaiters.append(c)
                return false
            }
            if done { c.resume() }
        }
    }

    /// Opens a link with `hello` and waits for `connected` (or the failure).
    func open(hello: String, url: String, resuming: Bool) async -> Result<Void, SessionError> {
        await withCheckedContinuation { (c: CheckedContinuation<Result<Void, SessionError>, Never>) in
            let refused: SessionError? = state.withLock { s in
                if resuming {
                    guard s.status == .reconnecting else { return .notConnected }
                } else {
                    guard s.status == .notConnected || s.status == .failed else {
                        return .illegalState("connect() while \(s.status)")
                    }
                    s.status = .connecting
                }
                s.generation &+= 1
                s.opening = c
                s.openingError = nil
                s.closedByServer = false
                let link = SignalingLink(
                    generation: s.generation, url: url, connectTimeout: settings.connectTimeout,
                    outgoingLimit: max(16, settings.outgoingLimit), headers: settings.signalingHeaders, logger: logger)
                s.link = link
                link.start(hello: hello, owner: self)
                return nil
            }
            if let refused { c.resume(returning: .failure(refused)) }
        }
    }

    // MARK: - Requests

    /// Sends a request with a fresh `rid` and waits for its `ack` (or `error`). Requires `connected`, except for
    /// retried signals, which are held while reconnecting and sent after.
    func request(_ message: ClientMessage, purpose: SessionState.Pending.Purpose) async
        -> Result<ServerMessage.Ack, SessionError>
    {
        await withCheckedContinuation { (c: CheckedContinuation<Result<ServerMessage.Ack, SessionError>, Never>) in
            let refused: SessionError? = state.withLock { s in
                let retry: Bool
                if case .signal(let r) = purpose { retry = r } else { retry = false }
                switch s.status {
                case .connected: break
                case .reconnecting where retry: break
                default: return .notConnected
                }
                let rid = s.makeRid()
                let text = Self.encode(ClientRequest(rid: rid, message))
                if s.status == .connected {
                    guard let link = s.link, link.send(text) else {
                        return Self.failure(for: purpose, "the outgoing queue is full")
                    }
                }
                s.pending[rid] = SessionState.Pending(purpose: purpose, text: text, continuation: c)
                return nil
            }
            if let refused { c.resume(returning: .failure(refused)) }
        }
    }

    /// Sends a message that expects no answer (negotiation relays, stream updates). False when not connected.
    @discardableResult
    func post(_ message: ClientMessage) -> Bool {
        state.withLock { s in
            guard s.status == .connected, let link = s.link else { return false }
            return link.send(Self.encode(ClientRequest(message)))
        }
    }

    /// The error a request of `purpose` fails with when it cannot be sent.
    static func failure(for purpose: SessionState.Pending.Purpose, _ why: String) -> SessionError {
        switch purpose {
        case .signal: .unableToSendSignal(why)
        case .publish, .subscribe, .other: .connectionDropped
        }
    }

    static func encode(_ request: ClientRequest) -> String {
        String(decoding: WireCodec.encode(request), as: UTF8.self)
    }

    // MARK: - Emitting

    /// Reports `event` to the streams and the delegate. Call with the state lock held, so that the order of
    /// events matches the order of state changes.
    func emit(_ event: SessionEvent) {
        hub.emit(event) { [weak self] in
            guard let self, let delegate = self.delegate else { return }
            event.deliver(to: delegate, from: self)
        }
    }

    /// Reports `event` to `publisher`'s event streams and delegate, in order with the session's events.
    func emit(_ event: PublisherEvent, for publisher: Publisher) {
        hub.emit(event, to: publisher.eventStreams) { [weak publisher] in
            guard let publisher, let delegate = publisher.delegate else { return }
            event.deliver(to: delegate, from: publisher)
        }
    }

    /// Reports `event` to `subscriber`'s event streams and delegate, in order with the session's events; the
    /// streams end after ``SubscriberEvent/disconnected``, or after `event` when it is the `last`.
    func emit(_ event: SubscriberEvent, for subscriber: Subscriber, last: Bool = false) {
        hub.emit(event, to: subscriber.eventStreams, finishing: last || event == .disconnected) { [weak subscriber] in
            guard let subscriber, let delegate = subscriber.delegate else { return }
            event.deliver(to: delegate, from: subscriber)
        }
    }

    /// Runs `work` with the negotiator on the negotiation queue.
    ///
    /// The negotiator is taken now and held by the work item, not looked up through the session when it runs:
    /// a session released right after `disconnect()` must still deliver its pending `negotiationDidEnd`s, or
    /// the media of those negotiations (peers, pipelines, the shared audio device's users) would never end.
    func withNegotiator(_ work: @escaping @Sendable (any MediaNegotiator) -> Void) {
        let negotiator = mediaNegotiator
        negotiationQueue.async { work(negotiator) }
    }
}

/// A weak reference to a session delegate, for storage behind a lock.
struct WeakSessionDelegate {
    weak var value: (any SessionDelegate)?
    init(_ value: (any SessionDelegate)?) { self.value = value }
}
