import Logging
import NIOCore
import TokKitProtocol

/// The server's state: sessions, connections (with their ``ConnectionState``), streams and subscriptions, and the
/// sockets attached to connections.
///
/// An actor: every mutation is serialized, so protocol ordering ("messages from one connection are processed in
/// the order sent") holds by construction. Messages are decoded before reaching the actor and encoded once per
/// delivery (a broadcast shares one encoding). Outgoing messages go to each socket's ``Outbox`` without waiting.
/// Timeouts (connect deadline, heartbeat, resume grace) are checked by ``sweep(now:)``, which the server calls
/// periodically.
actor SessionRegistry {
    let authority: TokenAuthority
    let configuration: ServerConfiguration
    let logger: Logger
    /// Mints the TURN credentials of `connected`, when a TURN secret is configured.
    let turnCredentials: TURNCredentials?
    /// The server's counters (`GET /metrics`).
    let metrics: ServerMetrics
    /// Drives Janus for routed sessions, when ``ServerConfiguration/janus`` names one.
    let routing: RoutedMedia?

    var sessions: [String: SessionRecord] = [:]
    var rooms: [String: String] = [:]
    var connections: [String: ConnectionRecord] = [:]
    var sockets: [SocketID: String] = [:]
    var streams: [String: StreamRecord] = [:]
    var subscriptions: [String: SubscriptionRecord] = [:]
    /// The recording running in each session (the `archiveStarted` a joining connection gets; Archives/).
    var recordings: [String: ServerMessage.ArchiveStarted] = [:]
    /// When each of ``recordings`` started: its idle stop counts from then at the earliest.
    var recordingStarts: [String: ContinuousClock.Instant] = [:]
    /// Wakes the archive service when ``archiveWork`` has something (buffers one wake at most), if anyone listens.
    var archiveWake: AsyncStream<Void>.Continuation?
    /// The archive work pending, the latest per session (bounded by the number of sessions; Archives/).
    var archiveWork: [String: ArchiveActivity] = [:]
    private var nextSocket: UInt64 = 0
    private var isShutDown = false

    init(authority: TokenAuthority, configuration: ServerConfiguration, logger: Logger,
         metrics: ServerMetrics = ServerMetrics()) {
        self.authority = authority
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        routing = configuration.janus.isEmpty ? nil : RoutedMedia(instances: configuration.janus, logger: logger)
        turnCredentials = configuration.turnSecret.map {
            TURNCredentials(secret: $0, lifetimeSeconds: Int64(configuration.turnCredentialLifetime))
        }
    }

    var heartbeatTimeout: Duration { .milliseconds(configuration.heartbeatTimeoutMs) }
    var resumeGrace: Duration { .milliseconds(configuration.resumeGraceMs) }

    // MARK: Sockets

    /// Registers a new socket as a `connecting` connection, labelling it with the connection's id; `activity` is
    /// the socket's arrival stamp, which the heartbeat reads. After shutdown the outbox is closed at once.
    func open(
        outbox: Outbox, label: ConnectionLabel = ConnectionLabel(), activity: SocketActivity? = nil,
        now: ContinuousClock.Instant = .now
    ) -> SocketID {
        nextSocket += 1
        let socket = SocketID(value: nextSocket)
        guard !isShutDown else {
            outbox.close(.goingAway)
            return socket
        }
        let id = RandomID.object()
        connections[id] = ConnectionRecord(
            id: id, state: .connecting(deadline: now + .milliseconds(configuration.connectTimeoutMs)),
            socket: socket, outbox: outbox, label: label, lastSeen: now, activity: activity)
        sockets[socket] = id
        label.set(connection: id, session: nil)
        return socket
    }

    /// The socket ended (peer closed, network error, or after the registry closed its outbox). Idempotent.
    /// A connected member starts its resume grace period; a connecting record is dropped.
    func socketClosed(_ socket: SocketID, now: ContinuousClock.Instant = .now) {
        guard let id = sockets.removeValue(forKey: socket), var connection = connections[id] else { return }
        connection.outbox?.close(.normal)
        connection.outbox = nil
        connection.label = nil
        connection.activity = nil
        connection.socket = nil
        switch connection.state {
        case .connecting, .closed:
            connections[id] = nil
        case .connected:
            connection.state = .awaitingResume(deadline: now + resumeGrace)
            connections[id] = connection
            logger.debug("connection lost, awaiting resume", metadata: logMetadata(id))
            if configuration.resumeGraceMs == 0 { destroy(id, reason: .networkDisconnected) }
        case .awaitingResume:
            connections[id] = connection
        }
    }

    /// Detaches a connected member from its socket (closing it with `code`) and starts the resume grace period.
    func detach(_ id: String, code: CloseCode, now: ContinuousClock.Instant) {
        guard var connection = connections[id], case .connected = connection.state else { return }
        if let socket = connection.socket { sockets[socket] = nil }
        connection.outbox?.close(code)
        connection.outbox = nil
        connection.label = nil
        connection.activity = nil
        connection.socket = nil
        connection.state = .awaitingResume(deadline: now + resumeGrace)
        connections[id] = connection
        if configuration.resumeGraceMs == 0 { destroy(id, reason: .networkDisconnected) }
    }

    /// Closes a socket that never became a member and forgets it.
    func reject(_ id: String, code: CloseCode) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        if let socket = connection.socket { sockets[socket] = nil }
        connection.outbox?.close(code)
    }

    // MARK: Timers

    /// Applies every deadline that has passed: connect deadline (error 1006, close 1008), heartbeat timeout (nothing
    /// received for ``ServerConfiguration/heartbeatTimeoutMs``, by arrival: ``ConnectionRecord/lastHeard``; close
    /// 1001, await resume), resume grace (destroy, `networkDisconnected`), empty session expiry.
    func sweep(now: ContinuousClock.Instant = .now) {
        defer { expireEmptySessions(now: now) }
        for id in Array(connections.keys) {
            guard let connection = connections[id] else { continue }
            switch connection.state {
            case let .connecting(deadline) where now >= deadline:
                reply(nil, error: ProtocolError(.connectFailed, "no connect before the deadline"), to: id)
                reject(id, code: .policyViolation)
            case .connected where now - connection.lastHeard > heartbeatTimeout:
                logger.debug("heartbeat timeout", metadata: logMetadata(id))
                detach(id, code: .goingAway, now: now)
            case let .awaitingResume(deadline) where now >= deadline:
                destroy(id, reason: .networkDisconnected)
            default:
                break
            }
        }
    }

    /// Forgets the sessions without participants for ``ServerConfiguration/emptySessionTimeoutMs`` (and their
    /// quick-start room names), disconnecting the hidden connections (archive recorders) left in them; starts the
    /// clock of those found without participants, stops it for those with. A recording in a session without
    /// participants for ``ServerConfiguration/archiveIdleStopMs`` (or expiring) is asked to stop.
    private func expireEmptySessions(now: ContinuousClock.Instant) {
        let timeout = Duration.milliseconds(configuration.emptySessionTimeoutMs)
        let idleStop = Duration.milliseconds(configuration.archiveIdleStopMs)
        var expired = Set<String>()
        for (id, session) in sessions {
            if hasParticipants(session) {
                if session.emptySince != nil { sessions[id]?.emptySince = nil }
            } else if let since = session.emptySince {
                if now - since >= timeout { expired.insert(id) }
                // Idle from when the session emptied or, later, when the recording started (a REST start in a
                // session long without participants gets its full idle period); an expiring session's stops now.
                let idleSince = max(since, recordingStarts[id] ?? since)
                if recordings[id] != nil, now - since >= timeout || now - idleSince >= idleStop { noteArchiveIdle(id) }
            } else {
                sessions[id]?.emptySince = now
            }
        }
        guard !expired.isEmpty else { return }
        for id in expired {
            for connectionID in sessions[id]?.connectionIDs ?? [] { destroy(connectionID, reason: .forceDisconnected) }
            if sessions[id]?.description.mediaMode == .routed { routing?.submit(.sessionEnded(sessionID: id), session: id) }
            sessions[id] = nil
            recordings[id] = nil
            recordingStarts[id] = nil
        }
        metrics.sessionsExpired(expired.count)
        rooms = rooms.filter { !expired.contains($0.value) }
        logger.debug("empty sessions expired", metadata: ["count": "\(expired.count)"])
    }

    /// Closes every socket (1001) and forgets everything; later sockets are closed at once.
    func shutdown() {
        isShutDown = true
        for connection in connections.values { connection.outbox?.close(.goingAway) }
        connections.removeAll()
        sockets.removeAll()
        streams.removeAll()
        subscriptions.removeAll()
        sessions.removeAll()
        rooms.removeAll()
        recordings.removeAll()
    }

    /// Connections of every state (cheap: no walk).
    var connectionCount: Int { connections.count }

    func stats() -> RegistryStats {
        var stats = RegistryStats()
        stats.sessions = sessions.count
        for connection in connections.values {
            switch connection.state {
            case .connecting: stats.connecting += 1
            case .connected: stats.connected += 1
            case .awaitingResume: stats.awaitingResume += 1
            case .closed: break
            }
        }
        stats.sockets = sockets.count
        stats.streams = streams.count
        stats.subscriptions = subscriptions.count
        return stats
    }

    // MARK: Delivery

    /// Sends one message to one connection if it has a socket; dropped otherwise (awaiting resume). Whether it was
    /// queued.
    @discardableResult
    func send(_ message: ServerMessage, to id: String) -> Bool {
        connections[id]?.outbox?.send(WireCodec.encode(message)) ?? false
    }

    /// Sends one message (encoded once) to every member of a session with a socket, except `excluded`. How many
    /// queued it.
    @discardableResult
    func broadcast(_ message: ServerMessage, in sessionID: String, except excluded: String? = nil) -> Int {
        broadcast(encoded: ByteBuffer(bytes: WireCodec.encode(message)), in: sessionID, except: excluded)
    }

    /// Queues `bytes`, an encoded message, to every member of a session with a socket except `excluded`: one
    /// buffer shared by every outbox. How many queued it.
    @discardableResult
    func broadcast(encoded bytes: ByteBuffer, in sessionID: String, except excluded: String? = nil) -> Int {
        guard let session = sessions[sessionID] else { return 0 }
        var queued = 0
        for id in session.connectionIDs where id != excluded {
            if connections[id]?.outbox?.send(bytes) == true { queued += 1 }
        }
        return queued
    }

    /// Answers a request with `error` (counted as refused, by code).
    func reply(_ rid: Int?, error: ProtocolError, to id: String) {
        metrics.refused(error.code, via: .websocket)
        logger.debug(
            "request refused",
            metadata: logMetadata(id, ["code": "\(error.code.rawValue)", "rid": "\(rid.map(String.init) ?? "-")"]))
        send(.error(.init(rid: rid, error)), to: id)
    }

    func ack(_ rid: Int?, to id: String, streamID: String? = nil, subscriberID: String? = nil) {
        guard let rid else { return }
        send(.ack(.init(rid: rid, streamID: streamID, subscriberID: subscriberID)), to: id)
    }

    // MARK: Logs

    /// The metadata of a line about connection `id` (Docs/Server.md): its id (``ConnectionLabel/connectionKey``),
    /// its session's once it joined (``ConnectionLabel/sessionKey``), and `extra`.
    func logMetadata(_ id: String, _ extra: Logger.Metadata = [:]) -> Logger.Metadata {
        ConnectionLabel.metadata((id, connections[id]?.membership?.sessionID)).merging(extra) { $1 }
    }

    // MARK: Removal

    /// Destroys a member connection: its streams end, its subscriptions end (publishers get `unsubscribe`), then
    /// everyone else gets `connectionDestroyed`. Unless the network was lost, the connection itself gets its own
    /// `connectionDestroyed` and its socket closes normally.
    func destroy(_ id: String, reason: DisconnectReason) {
        guard let connection = connections[id] else { return }
        guard let membership = connection.membership else {
            reject(id, code: .normal)
            return
        }
        let metadata = logMetadata(id, ["reason": "\(reason.rawValue)"])
        for streamID in connection.streamIDs {
            removeStream(streamID, reason: StreamDestroyedReason(reason), except: id)
        }
        for subscriberID in connections[id]?.subscriberIDs ?? [] {
            removeSubscription(subscriberID, notifyPublisher: true)
        }
        sessions[membership.sessionID]?.connectionIDs.removeAll { $0 == id }
        let event = ByteBuffer(
            bytes: WireCodec.encode(ServerMessage.connectionDestroyed(.init(connection: membership.info, reason: reason))))
        if !membership.hidden {
            broadcast(encoded: event, in: membership.sessionID)  // encoded once, for the others and the connection itself
        }
        if reason != .networkDisconnected { connection.outbox?.send(event) }
        connection.outbox?.close(.normal)
        if let socket = connection.socket { sockets[socket] = nil }
        connections[id] = nil
        metrics.connectionDestroyed(reason)
        logger.debug("connection destroyed", metadata: metadata)
    }

    /// Ends a stream: its subscriptions go away silently, members get `streamDestroyed` (except `excluded`).
    func removeStream(_ streamID: String, reason: StreamDestroyedReason, except excluded: String? = nil) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        if stream.upstreamID != nil { routing?.submit(.streamEnded(streamID: streamID, sessionID: stream.sessionID), session: stream.sessionID) }
        for subscriberID in stream.subscriberIDs {
            guard let subscription = subscriptions.removeValue(forKey: subscriberID) else { continue }
            connections[subscription.subscriber]?.subscriberIDs.removeAll { $0 == subscriberID }
        }
        sessions[stream.sessionID]?.streamIDs.removeAll { $0 == streamID }
        connections[stream.info.connectionID]?.streamIDs.removeAll { $0 == streamID }
        broadcast(.streamDestroyed(.init(stream: stream.info, reason: reason)), in: stream.sessionID, except: excluded)
        noteStreamEnded(in: stream.sessionID)
    }

    /// Ends a subscription; optionally tells the publisher (`unsubscribe`).
    func removeSubscription(_ subscriberID: String, notifyPublisher: Bool) {
        guard let subscription = subscriptions.removeValue(forKey: subscriberID) else { return }
        streams[subscription.streamID]?.subscriberIDs.removeAll { $0 == subscriberID }
        connections[subscription.subscriber]?.subscriberIDs.removeAll { $0 == subscriberID }
        if let stream = streams[subscription.streamID], stream.upstreamID != nil {
            // Routed: the publisher never heard of this subscription; its Janus handle goes.
            // Counted against the subscriber (a subscribe/unsubscribe loop fills its bound), never refused.
            routing?.submit(.unsubscribe(subscriberID: subscriberID), session: stream.sessionID,
                            from: subscription.subscriber, refusable: false)
            return
        }
        if notifyPublisher, subscription.publisher != subscription.subscriber {
            send(
                .unsubscribe(.init(streamID: subscription.streamID, subscriberID: subscriberID, from: subscription.subscriber)),
                to: subscription.publisher)
        }
    }
}
