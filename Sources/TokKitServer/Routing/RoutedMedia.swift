import Logging
import TokKitJanus
import TokKitProtocol

/// The session server's side of routed sessions (Docs/Routing.md): drives one Janus instance's VideoRoom plugin
/// and translates TokKit's negotiation to it.
///
/// Per routed TokKit session a VideoRoom room (created with the session's first upstream, destroyed when the
/// session ends or the server stops); per routed stream a publisher handle (the client's one offer → Janus's
/// answer, its candidates trickled to Janus); per subscription a subscriber handle (Janus's offer → the client, its
/// answer and candidates → Janus). One Janus session holds every handle, kept alive by ``JanusSession``.
///
/// ## Order and state
/// The registry submits ``RoutedMediaCommand``s without waiting (``submit(_:session:from:)``), each into the lane of
/// its TokKit session (``RoutedMediaLanes``): a lane's commands are handled one at a time in order, so the messages
/// of one negotiation reach Janus in the order the client sent them, while lanes of different sessions run side by
/// side (a session whose Janus round-trips are slow delays only itself). A client's commands waiting or running are
/// bounded (``maxPendingPerConnection``): past it the registry refuses the message (1430). Janus's replies go back as
/// ``RoutedMediaDelivery``s on ``deliveries``, which the server hands to the registry. A subscription waits (state
/// `waiting`, at most ``feedTimeout``) until Janus reports the publisher's PeerConnection up (`webrtcup`): Janus
/// offers a feed only then. The link to Janus is an explicit ``Link`` state: connected lazily at the first command
/// that needs it (concurrent lanes share one connect), and lost when its Janus session ends for any reason (Janus
/// timed it out, its keepalives kept failing, the socket closed, Janus stopped reading): then every routed stream
/// on it is failed and unpublished, every subscription failed, the rooms destroyed (best effort, through a new
/// link), and the next command connects again. Every Janus request is bounded
/// (``RoutedMediaConfiguration/requestTimeoutMs``); a refusal or failure becomes `error` 1570 for the client whose
/// negotiation it was, and a failed upstream ends its stream (`streamDestroyed`, reason `forceUnpublished`).
actor RoutedMedia {
    /// The link to Janus.
    private enum Link {
        /// Not connected (yet, or again after the Janus session ended).
        case idle
        /// Connecting; every lane needing the link waits for this one attempt.
        case connecting(Task<Result<(JanusSession, VideoRoomAdmin), JanusError>, Never>)
        /// A Janus session and its admin handle (rooms); `watcher` waits for the session's end.
        case connected(JanusConnection, JanusSession, VideoRoomAdmin, watcher: Task<Void, Never>)
        /// ``shutdown()`` ran: nothing more is done.
        case stopped
    }

    /// A routed stream's upstream: the publisher's PeerConnection to Janus.
    struct Upstream {
        let sessionID: String
        let connectionID: String
        let upstreamID: String
        var publisher: VideoRoomPublisher?
        var feed: UInt64?
        /// Janus reported the PeerConnection up: subscriptions can be offered.
        var up = false
        /// The `mid` of the offer's audio, and whether a moderator muted it at Janus (RoutedMedia+Moderation).
        var audioMid: String?
        var audioMuted = false
        var watcher: Task<Void, Never>?
    }

    /// A subscription to a routed stream.
    private struct Downstream {
        enum Phase { case waiting, offered, started }
        let sessionID: String
        let streamID: String
        let connectionID: String
        var phase: Phase = .waiting
        var subscriber: VideoRoomSubscriber?
        /// Candidates that came before the handle existed (nil: end of candidates); at most ``maxPending``.
        var pending: [String?] = []
        var deadline: Task<Void, Never>?
    }

    let configuration: RoutedMediaConfiguration
    let logger: Logger
    private var link: Link = .idle
    var rooms: [String: UInt64] = [:]
    var upstreams: [String: Upstream] = [:]
    private var downstreams: [String: Downstream] = [:]

    /// The commands waiting, per TokKit session (lane), and per client connection.
    private nonisolated let lanes: RoutedMediaLanes
    /// Janus's answers and offers and the failures, for the registry, in the order produced.
    nonisolated let deliveries: AsyncStream<RoutedMediaDelivery>
    private let deliver: AsyncStream<RoutedMediaDelivery>.Continuation

    /// How long a subscription waits for its publisher's PeerConnection to come up at Janus.
    static let feedTimeout: Duration = .seconds(20)
    /// Most candidates kept for a subscription before its handle exists.
    static let maxPending = 64
    /// Most commands of one client connection waiting or running at once, by default (an offer and its
    /// candidates, answers and candidates of its subscriptions: a legitimate client stays far below it).
    static let defaultMaxPendingPerConnection = 256

    /// Most commands of one client connection waiting or running at once; ``submit(_:session:from:)`` refuses more.
    nonisolated var maxPendingPerConnection: Int { lanes.maxPerConnection }

    init(configuration: RoutedMediaConfiguration, logger: Logger,
         maxPendingPerConnection: Int = RoutedMedia.defaultMaxPendingPerConnection) {
        self.configuration = configuration
        self.logger = logger
        lanes = RoutedMediaLanes(maxPerConnection: maxPendingPerConnection)
        (deliveries, deliver) = AsyncStream.makeStream(of: RoutedMediaDelivery.self, bufferingPolicy: .unbounded)
    }

    private var timeout: Duration { .milliseconds(configuration.requestTimeoutMs) }

    /// Queues `command` in the lane of TokKit session `session` (any context, never waits). A command a client's
    /// message caused names that client (`connectionID`): it is refused (false, nothing queued) when that client
    /// has ``maxPendingPerConnection`` commands waiting or running. The server's own commands (`connectionID` nil:
    /// a stream or session ending, a subscription's deadline) are never refused, nor is one with `refusable` false
    /// (a client's `unsubscribe`: counted against it, never refused). False after ``finish()`` too.
    @discardableResult
    nonisolated func submit(_ command: RoutedMediaCommand, session: String, from connectionID: String? = nil,
                            refusable: Bool = true) -> Bool {
        switch lanes.push(command, lane: session, connectionID: connectionID, refusable: refusable) {
        case .refused: return false
        case .queued: return true
        case .start:
            Task { await self.drain(session) }
            return true
        }
    }

    /// Returns once ``finish()`` was called and every command queued before it has been handled.
    func run() async {
        await lanes.waitUntilFinishedAndIdle()
    }

    /// Ends ``run()`` once the commands already queued are handled; later submissions are refused.
    nonisolated func finish() {
        lanes.finish()
    }

    /// Handles the commands of one lane in order until it is empty.
    private func drain(_ lane: String) async {
        while let next = lanes.next(in: lane) {
            await handle(next.command)
            lanes.done(next)
        }
    }

    /// Detaches every handle, destroys every room and the Janus session, closes the connection. Idempotent.
    func shutdown() async {
        if case let .connecting(task) = link {
            link = .stopped
            _ = await task.value  // the attempt sees `stopped` and closes what it opened
        }
        guard case let .connected(connection, session, admin, watcher) = link else {
            link = .stopped
            deliver.finish()
            return
        }
        link = .stopped
        watcher.cancel()
        for id in Array(downstreams.keys) { await endDownstream(id) }
        for id in Array(upstreams.keys) { await endUpstream(id) }
        for room in rooms.values { try? await admin.destroyRoom(room) }
        rooms.removeAll()
        try? await session.destroy()
        await connection.close()
        deliver.finish()
    }

    /// What is held now.
    func status() -> RoutedMediaStatus {
        var status = RoutedMediaStatus()
        status.rooms = rooms
        status.publishers = upstreams.values.filter { $0.publisher != nil }.count
        status.subscribers = downstreams.count
        if case .connected = link { status.connected = true }
        return status
    }

    // MARK: - Commands

    private func handle(_ command: RoutedMediaCommand) async {
        switch command {
        case let .publisherOffer(sessionID, streamID, upstreamID, connectionID, sdp):
            await publish(sessionID: sessionID, streamID: streamID, upstreamID: upstreamID,
                          connectionID: connectionID, sdp: sdp)
        case let .publisherCandidate(streamID, candidate):
            guard let publisher = upstreams[streamID]?.publisher else { return }
            await trickle(candidate, to: publisher.handle)
        case let .subscribe(sessionID, streamID, subscriberID, connectionID):
            var downstream = Downstream(sessionID: sessionID, streamID: streamID, connectionID: connectionID)
            downstream.deadline = Task { [weak self] in
                try? await Task.sleep(for: Self.feedTimeout)
                guard !Task.isCancelled else { return }
                self?.submit(.subscriptionDeadline(subscriberID: subscriberID), session: sessionID)
            }
            downstreams[subscriberID] = downstream
            if upstreams[streamID]?.up == true { await offer(subscriberID) }
        case let .subscriberAnswer(subscriberID, sdp):
            await start(subscriberID, answer: sdp)
        case let .subscriberCandidate(subscriberID, candidate):
            guard var downstream = downstreams[subscriberID] else { return }
            if let subscriber = downstream.subscriber, downstream.phase == .started {
                await trickle(candidate, to: subscriber.handle)
            } else if downstream.pending.count < Self.maxPending {
                downstream.pending.append(candidate)
                downstreams[subscriberID] = downstream
            }
        case let .unsubscribe(subscriberID):
            await endDownstream(subscriberID)
        case let .streamEnded(streamID):
            for (id, downstream) in downstreams where downstream.streamID == streamID { await endDownstream(id) }
            await endUpstream(streamID)
        case let .sessionEnded(sessionID):
            for (id, downstream) in downstreams where downstream.sessionID == sessionID { await endDownstream(id) }
            for (id, upstream) in upstreams where upstream.sessionID == sessionID { await endUpstream(id) }
            guard let room = rooms.removeValue(forKey: sessionID), case let .connected(_, _, admin, _) = link else { return }
            do throws(JanusError) { try await admin.destroyRoom(room) } catch {
                logger.notice("janus room not destroyed", metadata: ["room": "\(room)", "error": "\(error)"])
            }
        case let .publisherUp(streamID, handle):
            guard upstreams[streamID]?.publisher?.handle.id == handle else { return }
            upstreams[streamID]?.up = true
            for (id, downstream) in downstreams where downstream.streamID == streamID && downstream.phase == .waiting {
                await offer(id)
            }
        case let .upstreamLost(streamID, handle, reason):
            guard let upstream = upstreams[streamID], upstream.publisher?.handle.id == handle else { return }
            let message = "the media router lost this stream's media path: \(reason)"
            // Subscribers first: once the upstream's failure unpublishes the stream, their subscriptions are gone.
            for (id, downstream) in downstreams where downstream.streamID == streamID {
                fail(id, connectionID: downstream.connectionID, message)
            }
            failUpstream(streamID, upstream, message)
            for (id, downstream) in downstreams where downstream.streamID == streamID { await endDownstream(id) }
            await endUpstream(streamID)
        case let .moderateAudio(streamID, mute):
            await moderateAudio(streamID, mute: mute)
        case let .subscriptionDeadline(subscriberID):
            guard let downstream = downstreams[subscriberID], downstream.phase == .waiting else { return }
            fail(subscriberID, connectionID: downstream.connectionID,
                 "the published stream did not reach the media router within \(Self.feedTimeout)")
            await endDownstream(subscriberID)
        }
    }

    /// The publisher's offer: a publisher handle in the session's room (made if needed), `configure` with the
    /// offer, Janus's answer back. A second offer (the client restarting) replaces the handle; the stream's
    /// subscriptions, left on the old feed (Janus ends a subscription whose feed leaves), follow
    /// (``resubscribe(to:)``).
    private func publish(sessionID: String, streamID: String, upstreamID: String, connectionID: String,
                         sdp: String) async {
        if upstreams[streamID] != nil { await resubscribe(to: streamID) }
        await endUpstream(streamID)
        var upstream = Upstream(sessionID: sessionID, connectionID: connectionID, upstreamID: upstreamID)
        upstreams[streamID] = upstream
        do throws(JanusError) {
            let (session, room) = try await room(for: sessionID)
            let publisher = try await VideoRoomPublisher.attach(to: session)
            // Ended meanwhile (unpublished, or the link was lost and the stream failed already).
            guard upstreams[streamID] != nil else { return try await publisher.detach() }
            upstream.publisher = publisher
            upstreams[streamID] = upstream
            let joined = try await publisher.join(room: room, display: streamID)
            let answer = try await publisher.publish(offer: sdp, timeout: timeout)
            guard upstreams[streamID]?.publisher?.handle.id == publisher.handle.id else { return }  // ended meanwhile
            upstream.feed = joined.id
            upstream.audioMid = Self.audioMid(in: answer)
            let handleID = publisher.handle.id
            upstream.watcher = Task { [weak self] in
                for await event in publisher.events {
                    switch event {
                    case .webrtcUp: self?.submit(.publisherUp(streamID: streamID, handle: handleID), session: sessionID)
                    case .hangup(let reason):
                        self?.submit(.upstreamLost(streamID: streamID, handle: handleID, reason: "hung up (\(reason))"),
                                     session: sessionID)
                    case .roomDestroyed:
                        self?.submit(.upstreamLost(streamID: streamID, handle: handleID, reason: "its room was destroyed"),
                                     session: sessionID)
                    default: break
                    }
                }
                guard !Task.isCancelled else { return }
                // The stream ended without our detach: Janus closed the handle, the session or the socket.
                self?.submit(.upstreamLost(streamID: streamID, handle: handleID, reason: "Janus closed the handle"),
                             session: sessionID)
            }
            upstreams[streamID] = upstream
            deliver.yield(.negotiation(connectionID: connectionID, streamID: streamID, subscriberID: upstreamID,
                                       kind: .answer, payload: answer))
        } catch {
            forgetRoomIfGone(error, sessionID: sessionID)
            guard let current = upstreams[streamID], current.upstreamID == upstreamID else { return }  // failed already
            failUpstream(streamID, current, "publishing to the media router failed: \(error)")
            await endUpstream(streamID)
        }
    }

    /// The publisher of `streamID` re-offers: each subscription past `waiting` loses its subscriber handle and
    /// waits again (with a new deadline); once the new feed is up, Janus's new offer goes to the subscriber on the
    /// same `subscriberId`, which the client answers with a new peer (as a relayed publisher's restart, 6.5).
    private func resubscribe(to streamID: String) async {
        for (id, downstream) in downstreams where downstream.streamID == streamID && downstream.phase != .waiting {
            // The detach of an earlier one suspended this actor: the link may have been lost or shutdown run
            // meanwhile (the entry is gone), or the subscription reset already; then nothing is written back.
            guard let current = downstreams[id], current.phase != .waiting,
                  current.subscriber?.handle.id == downstream.subscriber?.handle.id
            else { continue }
            current.deadline?.cancel()
            var reset = current
            reset.phase = .waiting
            reset.subscriber = nil
            reset.pending = []
            let sessionID = downstream.sessionID
            reset.deadline = Task { [weak self] in
                try? await Task.sleep(for: Self.feedTimeout)
                guard !Task.isCancelled else { return }
                self?.submit(.subscriptionDeadline(subscriberID: id), session: sessionID)
            }
            downstreams[id] = reset
            if let subscriber = current.subscriber { try? await subscriber.detach() }
        }
    }

    /// A waiting subscription whose feed is up: a subscriber handle, `join` with the feed → Janus's offer to the
    /// client.
    private func offer(_ subscriberID: String) async {
        guard var downstream = downstreams[subscriberID], downstream.phase == .waiting,
              let feed = upstreams[downstream.streamID]?.feed
        else { return }
        downstream.phase = .offered
        downstream.deadline?.cancel()
        downstreams[subscriberID] = downstream
        do throws(JanusError) {
            let (session, room) = try await room(for: downstream.sessionID)
            let subscriber = try await VideoRoomSubscriber.attach(to: session)
            guard downstreams[subscriberID] != nil else { return try await subscriber.detach() }
            downstreams[subscriberID]?.subscriber = subscriber
            let subscription = try await subscriber.join(room: room, streams: [VideoRoomStreamRequest(feed: feed)],
                                                         timeout: timeout)
            guard downstreams[subscriberID] != nil else { return }
            deliver.yield(.negotiation(connectionID: downstream.connectionID, streamID: downstream.streamID,
                                       subscriberID: subscriberID, kind: .offer, payload: subscription.offer))
        } catch {
            forgetRoomIfGone(error, sessionID: downstream.sessionID)
            guard downstreams[subscriberID] != nil else { return }  // ended or failed meanwhile
            fail(subscriberID, connectionID: downstream.connectionID, "subscribing at the media router failed: \(error)")
            await endDownstream(subscriberID)
        }
    }

    /// The subscriber's answer: `start`, then the candidates that came early.
    private func start(_ subscriberID: String, answer: String) async {
        guard let downstream = downstreams[subscriberID], downstream.phase == .offered,
              let subscriber = downstream.subscriber
        else { return }
        do throws(JanusError) {
            try await subscriber.start(answer: answer, timeout: timeout)
            guard downstreams[subscriberID] != nil else { return }
            downstreams[subscriberID]?.phase = .started
            let pending = downstreams[subscriberID]?.pending ?? []
            downstreams[subscriberID]?.pending = []
            for candidate in pending { await trickle(candidate, to: subscriber.handle) }
        } catch {
            guard downstreams[subscriberID] != nil else { return }  // ended or failed meanwhile
            fail(subscriberID, connectionID: downstream.connectionID, "the media router refused the answer: \(error)")
            await endDownstream(subscriberID)
        }
    }

    // MARK: - Janus

    /// The Janus session (connecting first if needed) and the room of `sessionID` (created if needed).
    private func room(for sessionID: String) async throws(JanusError) -> (JanusSession, UInt64) {
        let (session, admin) = try await connected()
        if let room = rooms[sessionID] { return (session, room) }
        let room = try await admin.createRoom(VideoRoomSettings(description: "tokkit \(sessionID.prefix(32))"))
        rooms[sessionID] = room
        logger.debug("janus room created", metadata: ["session_id": "\(sessionID)", "room": "\(room)"])
        return (session, room)
    }

    private func connected() async throws(JanusError) -> (JanusSession, VideoRoomAdmin) {
        let attempt: Task<Result<(JanusSession, VideoRoomAdmin), JanusError>, Never>
        switch link {
        case let .connected(_, session, admin, _): return (session, admin)
        case .stopped: throw .cancelled
        case let .connecting(task): attempt = task
        case .idle:
            attempt = Task { await self.connect() }
            link = .connecting(attempt)
        }
        return try await attempt.value.get()
    }

    /// One connect attempt (``Link/connecting(_:)``): the connection, a Janus session, the admin handle; then
    /// ``Link/connected(_:_:_:watcher:)`` with a task waiting for the session's end (``linkLost(_:reason:)``).
    private func connect() async -> Result<(JanusSession, VideoRoomAdmin), JanusError> {
        let options = JanusConnection.Options(apiSecret: configuration.apiSecret, connectTimeout: timeout,
                                              requestTimeout: timeout)
        var opened: JanusConnection?
        do throws(JanusError) {
            let connection = try await JanusConnection.connect(to: configuration.url, options: options, logger: logger)
            opened = connection
            let session = try await connection.createSession()
            let admin = try await VideoRoomAdmin.attach(to: session, adminKey: configuration.adminKey)
            guard case .connecting = link else { throw .cancelled }  // stopped meanwhile
            let watcher = Task { [weak self] in
                let reason = await session.ended()
                await self?.linkLost(session.id, reason: reason)
            }
            link = .connected(connection, session, admin, watcher: watcher)
            return .success((session, admin))
        } catch {
            if let opened { await opened.close() }
            if case .connecting = link { link = .idle }
            return .failure(error)
        }
    }

    /// The Janus session of the link ended (Janus timed it out after missed keepalives, a keepalive found it gone,
    /// three keepalives in a row failed (a paused Janus), the socket closed, Janus stopped reading it): every routed
    /// stream on it fails and is unpublished, every subscription fails (1570 with `reason`), the link is closed and
    /// forgotten (the next command connects again), and the rooms, which outlive a Janus session when Janus itself
    /// lives on, are destroyed through a new link (best effort: a Janus that is gone took them with it).
    private func linkLost(_ janusSession: UInt64, reason: JanusError) async {
        guard case let .connected(connection, session, _, _) = link, session.id == janusSession else { return }
        link = .idle
        let orphans = Array(rooms.values)
        rooms.removeAll()
        logger.warning("janus session lost", metadata: ["session": "\(janusSession)", "reason": "\(reason)",
                                                        "streams": "\(upstreams.count)", "rooms": "\(orphans.count)"])
        let message = "the media router's session at Janus ended (\(reason))"
        let lostUpstreams = upstreams
        let lostDownstreams = downstreams
        upstreams.removeAll()
        downstreams.removeAll()
        for (id, downstream) in lostDownstreams {
            downstream.deadline?.cancel()
            fail(id, connectionID: downstream.connectionID, message)
        }
        for (streamID, upstream) in lostUpstreams {
            upstream.watcher?.cancel()
            failUpstream(streamID, upstream, message)
        }
        await connection.close()
        guard !orphans.isEmpty else { return }
        do throws(JanusError) {
            let (_, admin) = try await connected()
            for room in orphans { try? await admin.destroyRoom(room) }
        } catch {
            logger.notice("janus rooms of a lost session not destroyed", metadata: ["error": "\(error)"])
        }
    }

    /// Janus answered "no such room": the session's room went away at Janus (destroyed by someone else); the next
    /// upstream of that session creates a new one.
    private func forgetRoomIfGone(_ error: JanusError, sessionID: String) {
        if case .plugin(VideoRoomErrorCode.noSuchRoom, _) = error { rooms[sessionID] = nil }
    }

    private func trickle(_ candidate: String?, to handle: JanusHandle) async {
        do throws(JanusError) {
            if let candidate {
                try await handle.trickle(candidate: candidate, sdpMid: "0", sdpMLineIndex: 0)
            } else {
                try await handle.trickleCompleted()
            }
        } catch {
            logger.debug("janus trickle failed", metadata: ["handle": "\(handle.id)", "error": "\(error)"])
        }
    }

    /// A routed stream's upstream failed: its publisher gets 1570 naming the upstream, and the registry ends the
    /// stream (it could never carry media to anyone).
    private func failUpstream(_ streamID: String, _ upstream: Upstream, _ message: String) {
        fail(upstream.upstreamID, connectionID: upstream.connectionID, message)
        deliver.yield(.upstreamFailed(streamID: streamID, upstreamID: upstream.upstreamID))
    }

    private func fail(_ subscriberID: String, connectionID: String, _ message: String) {
        logger.notice("routed negotiation failed", metadata: ["subscriber_id": "\(subscriberID)", "reason": "\(message)"])
        deliver.yield(.failure(connectionID: connectionID, subscriberID: subscriberID,
                               ProtocolError(.mediaRouterFailed, message)))
    }

    private func endDownstream(_ subscriberID: String) async {
        guard let downstream = downstreams.removeValue(forKey: subscriberID) else { return }
        downstream.deadline?.cancel()
        if let subscriber = downstream.subscriber { try? await subscriber.detach() }
    }

    private func endUpstream(_ streamID: String) async {
        guard let upstream = upstreams.removeValue(forKey: streamID) else { return }
        upstream.watcher?.cancel()
        if let publisher = upstream.publisher { try? await publisher.detach() }
    }
}
