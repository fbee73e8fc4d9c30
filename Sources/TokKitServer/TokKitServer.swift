import CTokKitSystem
import Dispatch
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import ServiceLifecycle
import Synchronization
import TokKitJanus
import TokKitProtocol

/// The TokKit session server: REST API and WebSocket signaling (Docs/Protocol.md) on one port.
///
/// Embeddable: `start()` binds (port 0 = ephemeral) and returns the bound port; `stop()` closes every socket (1001)
/// and shuts down gracefully. It is also a swift-service-lifecycle `Service`: `run()` serves until graceful shutdown
/// (SIGTERM/SIGINT when its `ServiceGroup` traps them). Thread-safe: all methods may be called from any task;
/// state lives in the ``SessionRegistry`` actor and a `Mutex`-guarded run state.
public final class TokKitServer: Service, Sendable {
    /// The path of the signaling WebSocket.
    public static let signalingPath = "/signaling"

    /// The configuration the server was made with (a ``start()`` on port 0 does not change it).
    public let configuration: ServerConfiguration
    /// Signs and verifies this server's tokens (in-process token minting for demos and tests).
    public let authority: TokenAuthority
    let registry: SessionRegistry
    /// The archives (Docs/Archiving.md): start, stop, list, events, `archiveMode: always`.
    let archives: ArchiveService
    private let endpoint: SignalingEndpoint
    /// Counts open TCP connections against ``ServerConfiguration/maxConnections`` and its per-address cap.
    let limiter: ConnectionLimiter
    /// The Prometheus metrics served at `GET /metrics`.
    let metrics = ServerMetrics()
    private let logger: Logger
    private let runState = Mutex<RunState>(.idle)
    /// While running with a Janus: the task handling ``RoutedMedia``'s commands and the one delivering its replies.
    private let routingTasks = Mutex<[Task<Void, Never>]>([])
    /// The Janus this server runs itself (``ServerConfiguration/embeddedJanus``), or nil.
    private let embeddedJanus: EmbeddedJanus?

    private enum RunState {
        case idle
        case starting
        case running(group: ServiceGroup, serving: Task<Void, Never>, janitor: Task<Void, Never>, port: Int)
        case stopped
    }

    /// Validates the configuration and opens the archive store (when ``ServerConfiguration/archiveDirectory`` is
    /// set); nothing is bound until `start()`.
    ///
    /// - Parameter archiveRecorder: what records archives (TokKitArchiving's `ServerArchiveRecorder`); nil: archive
    ///   starts answer 501 / 1620 (stored archives are still listed, served and deleted).
    public init(
        configuration: ServerConfiguration, logger: Logger = Logger(label: "tokkit.server"),
        archiveRecorder: (any ArchiveRecorderFactory)? = nil
    ) throws(TokKitServerError) {
        try configuration.validate()
        self.configuration = configuration
        self.logger = logger
        authority = TokenAuthority(apiKey: configuration.apiKey, apiSecret: configuration.apiSecret)
        // An embedded Janus is the routed sessions' Janus: its URL and secrets are fixed now, it starts in start().
        var effective = configuration
        if let settings = configuration.embeddedJanus {
            let janus = try EmbeddedJanus(settings: settings, logger: logger)
            embeddedJanus = janus
            effective.janus = [janus.routedConfiguration]
        } else {
            embeddedJanus = nil
        }
        registry = SessionRegistry(
            authority: authority, configuration: effective, logger: logger, metrics: metrics)
        var store: ArchiveStore?
        if let directory = configuration.archiveDirectory {
            do throws(ArchiveError) {
                store = try ArchiveStore(directory: directory)
            } catch {
                throw .configuration("archiveDirectory: \(error.protocolError.message)")
            }
        }
        limiter = ConnectionLimiter(
            maxTotal: configuration.maxConnections, maxPerAddress: configuration.maxConnectionsPerAddress)
        archives = ArchiveService(
            store: store, recorder: archiveRecorder, registry: registry, authority: authority, limiter: limiter,
            logger: logger)
        endpoint = SignalingEndpoint(
            registry: registry, outboxCapacity: configuration.outboxCapacity,
            outboxMaxBytes: configuration.outboxMaxBytes,
            closeTimeout: .milliseconds(Int64(configuration.closeTimeoutMs)), metrics: metrics)
    }

    /// What the server holds at its Janus for routed sessions (rooms, handles), or nil without a Janus
    /// (``ServerConfiguration/janus``). For monitoring and tests.
    public func routedMediaStatus() async -> RoutedMediaStatus? {
        await registry.routing?.status()
    }

    /// The server's own Janus (``ServerConfiguration/embeddedJanus``): its state, process and restarts; nil
    /// without one. For monitoring and tests.
    public func embeddedJanusStatus() -> EmbeddedJanusStatus? {
        embeddedJanus?.status()
    }

    /// The bound port while running.
    public var port: Int? {
        runState.withLock { state in
            if case let .running(_, _, _, port) = state { return port }
            return nil
        }
    }

    /// Starts the embedded Janus (``ServerConfiguration/embeddedJanus``) if there is one and waits until it
    /// answers, then binds and starts serving; returns the bound port. Throws if already started, if the embedded
    /// Janus cannot start (``TokKitServerError/embeddedJanus(_:)``: nothing is left running), or if the bind fails.
    public func start() async throws(TokKitServerError) -> Int {
        try runState.withLock { state throws(TokKitServerError) in
            guard case .idle = state else { throw .alreadyStarted }
            state = .starting
        }
        if let embeddedJanus {
            do throws(JanusError) {
                try await embeddedJanus.start()
            } catch {
                runState.withLock { $0 = .idle }
                throw .embeddedJanus(error)
            }
        }
        let bound = OneShot<Int>()
        let app = makeApplication { port in bound.complete(.success(port)) }
        let group = ServiceGroup(services: [app], logger: logger)
        let host = configuration.host
        let requestedPort = configuration.port
        let serving = Task {
            do {
                try await group.run()
                bound.complete(.failure(.bindFailed(host: host, port: requestedPort, reason: "server ended")))
            } catch {
                bound.complete(.failure(.bindFailed(host: host, port: requestedPort, reason: "\(error)")))
            }
        }
        switch await bound.value() {
        case let .success(port):
            let janitor = Task { [registry, logger, tick = sweepInterval] in
                var trim = MemoryTrimPolicy()
                while !Task.isCancelled {
                    try? await Task.sleep(for: tick)
                    await registry.sweep()
                    if trim.shouldTrim(connections: await registry.connectionCount) {
                        // Up to tens of milliseconds of work: on a thread of its own, not the cooperative pool.
                        DispatchQueue.global(qos: .utility).async {
                            let start = ContinuousClock.now
                            let returned = tk_malloc_trim() != 0
                            logger.debug("memory trimmed", metadata: [
                                "returned": "\(returned)", "duration": "\(ContinuousClock.now - start)"])
                        }
                    }
                }
            }
            runState.withLock { $0 = .running(group: group, serving: serving, janitor: janitor, port: port) }
            let reachable = ["0.0.0.0", "::", "[::]"].contains(host) ? "127.0.0.1" : host
            // The recorder connects to `reachable`: from loopback, or from the server's own listening address.
            limiter.recorderAddresses = ["127.0.0.1", "::1", "::ffff:127.0.0.1", reachable]
            await archives.open(serverURL: "http://\(reachable.contains(":") ? "[\(reachable)]" : reachable):\(port)")
            if let routing = registry.routing {
                let tasks = [
                    Task { await routing.run() },
                    Task { [registry] in
                        for await delivery in routing.deliveries { await registry.deliverRouted(delivery) }
                    },
                ]
                routingTasks.withLock { $0 = tasks }
            }
            logger.info("tokkit-server listening", metadata: ["host": "\(host)", "port": "\(port)"])
            return port
        case let .failure(error):
            await serving.value
            await embeddedJanus?.stop()
            runState.withLock { $0 = .idle }
            throw error
        }
    }

    /// Closes every socket with 1001, stops accepting and waits until the listener and every socket task ended.
    /// Idempotent.
    public func stop() async {
        let running = runState.withLock { state -> (ServiceGroup, Task<Void, Never>, Task<Void, Never>)? in
            guard case let .running(group, serving, janitor, _) = state else { return nil }
            state = .stopped
            return (group, serving, janitor)
        }
        guard let (group, serving, janitor) = running else { return }
        await archives.close()  // recordings end first: their files are finished, members hear archiveStopped
        await registry.shutdown()
        // Every socket's writer now sends its 1001 close frame; let them finish before the HTTP server closes the
        // channels under them (which would end a socket with no close frame, or with 1000). Sockets upgraded whose
        // handler has not started yet are waited for too: the handler finds the registry shut down and closes with
        // 1001. Bounded: a writer stuck on a dead peer is cut by the graceful shutdown after 2 s (and a handler the
        // cooperative pool has not started by then is closed by it, with 1000).
        let deadline = ContinuousClock.now + .seconds(2)
        while endpoint.openSockets.current > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(2))
        }
        janitor.cancel()
        await janitor.value
        if let routing = registry.routing {
            // Commands already queued are handled, then every Janus handle and room goes.
            routing.finish()
            let tasks = routingTasks.withLock { $0 }
            await tasks.first?.value
            await routing.shutdown()
            for task in tasks { await task.value }
        }
        await embeddedJanus?.stop()  // after the rooms were destroyed at it; its generated files go
        await group.triggerGracefulShutdown()
        await serving.value
        logger.info("tokkit-server stopped")
    }

    /// `Service`: starts, serves until graceful shutdown (or cancellation), then stops.
    public func run() async throws {
        _ = try await start()
        try? await gracefulShutdown()
        await stop()
    }

    // MARK: In-process API

    /// Creates a session (as `POST /session/create`).
    public func createSession(mediaMode: MediaMode = .relayed, archiveMode: ArchiveMode = .manual)
        async throws(ProtocolError) -> SessionDescription
    {
        try await registry.createSession(mediaMode: mediaMode, archiveMode: archiveMode)
    }

    /// The session of a quick-start room (as `GET /room/{name}`), created relayed/manual on first use: unlike
    /// ``createSession(mediaMode:archiveMode:)``, its tokens are also served by the development route
    /// `GET /credentials/{id}` while quick start is on (a browser page joining a session a program made).
    public func room(_ name: String) async throws(ProtocolError) -> SessionDescription {
        try await registry.room(name)
    }

    /// Issues a token for an existing session (as `POST …/token`); 1005 if the session is unknown.
    public func issueToken(
        sessionID: String, role: Role = .publisher, expireTime: Int64? = nil, connectionData: String = ""
    ) async throws(ProtocolError) -> IssuedToken {
        _ = try await registry.session(sessionID)
        return try authority.issue(
            sessionID: sessionID, role: role, expireTime: expireTime, connectionData: connectionData,
            now: WallClock.seconds())
    }

    /// Counts of everything the server holds (leak checks).
    public func stats() async -> RegistryStats {
        await Self.stats(registry: registry, endpoint: endpoint, limiter: limiter)
    }

    private static func stats(registry: SessionRegistry, endpoint: SignalingEndpoint, limiter: ConnectionLimiter) async
        -> RegistryStats
    {
        var stats = await registry.stats()
        stats.socketTasks = endpoint.activeSockets.current
        stats.tcpConnections = limiter.open
        return stats
    }

    // MARK: Assembly

    /// True for `/signaling`, with or without a query string.
    static func isSignalingPath(_ path: String?) -> Bool {
        guard let path else { return false }
        return path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first == signalingPath[...]
    }

    private static let recorderHeader = HTTPFields.Element.Name(ConnectionLimiter.recorderHeader)!

    private var sweepInterval: Duration {
        var shortest = min(configuration.heartbeatTimeoutMs, configuration.connectTimeoutMs)
        if configuration.resumeGraceMs > 0 { shortest = min(shortest, configuration.resumeGraceMs) }
        shortest = min(shortest, configuration.emptySessionTimeoutMs, configuration.archiveIdleStopMs)
        return .milliseconds(max(10, min(1_000, shortest / 4)))
    }

    private func makeApplication(onBound: @escaping @Sendable (Int) -> Void) -> some ApplicationProtocol {
        let router = Router(context: ServerRequestContext.self)
        let rate = QuickStartLimiter(rate: configuration.quickStartRate, burst: configuration.quickStartBurst)
        RESTRoutes(
            registry: registry, authority: authority, quickStart: configuration.quickStart, limiter: rate,
            metrics: metrics
        ).register(on: router)
        ArchiveRoutes(
            service: archives, registry: registry, authority: authority, quickStart: configuration.quickStart,
            links: ArchiveLinkSigner(), limiter: rate, metrics: metrics
        ).register(on: router)
        BrowserClient(
            registry: registry, authority: authority, quickStart: configuration.quickStart, limiter: rate,
            metrics: metrics
        ).register(on: router)
        MetricsRoute(authority: authority, metrics: metrics) { [registry, endpoint, limiter] in
            await Self.stats(registry: registry, endpoint: endpoint, limiter: limiter)
        }.register(on: router)
        // After the routes, so these two only wrap the not-found path; the JSON 404 outermost, after static files.
        router.add(middleware: JSONNotFoundMiddleware(metrics: metrics))
        if let directory = configuration.staticDirectory {
            router.add(
                middleware: FileMiddleware<ServerRequestContext, LocalFileSystem>(
                    directory, searchForIndexHtml: true, logger: logger))
        }
        let endpoint = endpoint
        let webSocket = WebSocketServerConfiguration(
            maxFrameSize: ProtocolLimits.maxFrameBytes, autoPing: .disabled,
            closeTimeout: .milliseconds(configuration.closeTimeoutMs))
        let http1 = HTTP1Channel.Configuration(
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: configuration.maxHeaderBytes, maxHeaderListSize: configuration.maxHeaderBytes,
                maxHeaderFieldCount: configuration.maxHeaderCount))
        let timeouts = RequestGuard.Timeouts(
            head: .milliseconds(Int64(configuration.requestHeadTimeoutMs)),
            body: .milliseconds(Int64(configuration.requestBodyTimeoutMs)))
        let server = HTTPServerBuilder { [limiter, metrics] responder in
            GuardedChildChannel(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder, configuration: .init(http1: http1, ws: webSocket)
                ) { head, channel, _ in
                    guard Self.isSignalingPath(head.path) else { return .dontUpgrade }
                    if let shown = head.headerFields[Self.recorderHeader] {
                        // The server's own archive recorder: not counted against its address (ConnectionLimiter).
                        limiter.exemptRecorder(ObjectIdentifier(channel), showing: shown)
                    }
                    let upgrade = endpoint.acceptUpgrade(channel: channel)
                    channel.closeFuture.whenComplete { _ in upgrade.release() }
                    try await upgrade.watchActivity()
                    return .upgrade([:]) { inbound, outbound, context in
                        await endpoint.serve(
                            inbound: inbound, outbound: outbound, upgrade: upgrade, logger: context.logger)
                    }
                },
                limiter: limiter, timeouts: timeouts, metrics: metrics)
        }
        return Application(
            router: router,
            server: server,
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "tokkit-server"),
            onServerRunning: { channel in onBound(channel.localAddress?.port ?? 0) },
            logger: logger)
    }
}
