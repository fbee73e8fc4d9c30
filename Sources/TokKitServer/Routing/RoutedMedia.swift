import Logging
import TokKitJanus
import TokKitProtocol

/// The session server's side of routed sessions (Docs/Routing.md): drives the VideoRoom plugin of the Janus
/// instances it is given and translates TokKit's negotiation to it.
///
/// Per routed TokKit session a VideoRoom room (created with the session's first upstream, destroyed when its last
/// stream ends, the session ends or the server stops); per routed stream a publisher handle (the client's one offer → Janus's
/// answer, its candidates trickled to Janus); per subscription a subscriber handle (Janus's offer → the client, its
/// answer and candidates → Janus). One Janus session per instance holds every handle there, kept alive by
/// ``JanusSession``.
///
/// ## Placement and failover
/// A TokKit session is placed, at its first routed upstream, on the least loaded reachable instance
/// (``RoutedMediaPlacement``: load is the sessions placed on it plus their streams and subscriptions; an instance
/// that cannot be reached is
/// skipped and marked down for a while) and stays there. When an instance's Janus session ends while another
/// instance is up, the sessions placed on it are *moved* rather than failed: their upstreams and subscriptions
/// lose their handles and wait (at most ``feedTimeout``); their publishers are asked to offer again at once
/// (`mediaRestart`, ``askToRestart(_:reason:)``; their media watchdogs do so anyway after 2.5 s of silence) on the
/// same upstream id (a client restart, Protocol.md 6.7 step 6), that offer places the session on another instance,
/// and once the new feed is up every waiting subscription is offered it on its `subscriberId`.
/// With no other instance up, the streams and subscriptions fail as below.
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
    /// The link to one Janus instance.
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
        /// The `a=ice-ufrag` of the offer Janus answered: names the publisher's peer in a `mediaRestart`.
        var iceUfrag: String?
        /// Whether its offer sends simulcast (Janus switches substreams, and reports them, only then).
        var simulcast = false
        var watcher: Task<Void, Never>?
        /// Its instance was lost and the session is moving: the publisher's next offer places it on another
        /// instance; this task fails the stream if that offer does not come within ``feedTimeout``.
        var moving: Task<Void, Never>?
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
        /// The video section's mid in Janus's offer (for `configure`).
        var videoMid: String?
        /// The simulcast layer asked for (nil: Janus's default, the full size); applied once started.
        var substream: Int?
        /// The temporal layer asked for (nil: Janus's default, every layer); applied with ``substream``.
        var temporal: Int?
        /// The simulcast layer Janus last said it forwards (its `substream` events; nil: none said yet).
        var relayed: Int?
        /// Reads the subscriber handle's events (the layer Janus forwards).
        var watcher: Task<Void, Never>?
        /// Asks again for ``substream`` if Janus has not switched to it after ``layerSwitchWait``.
        var layerCheck: Task<Void, Never>?

        /// Stops its tasks (the deadline, the event watcher, the layer check): it ended or lost its handle.
        func cancelTasks() {
            deadline?.cancel()
            watcher?.cancel()
            layerCheck?.cancel()
        }
    }

    /// The Janus instances, in configuration order (an instance's index is its identity).
    let instances: [RoutedMediaConfiguration]
    let logger: Logger
    /// One link per instance, by index.
    private var links: [Link]
    /// Whether ``shutdown()`` ran.
    private var stopped = false
    /// Load and health of each instance.
    private var placement: RoutedMediaPlacement
    /// The instance each TokKit session is placed on, by session id.
    private var placed: [String: Int] = [:]
    /// The room of each placed session that has one (on its instance), by session id.
    var rooms: [String: UInt64] = [:]
    var upstreams: [String: Upstream] = [:]
    /// Streams a moderator muted before their publisher's first offer reached ``RoutedMedia`` (no upstream yet):
    /// muted at Janus once that offer is answered (RoutedMedia+Moderation). One entry per stream at most, removed
    /// when the stream ends.
    var mutedBeforeOffer: Set<String> = []
    private var downstreams: [String: Downstream] = [:]

    /// The commands waiting, per TokKit session (lane), and per client connection.
    private nonisolated let lanes: RoutedMediaLanes
    /// Janus's answers and offers and the failures, for the registry, in the order produced.
    nonisolated let deliveries: AsyncStream<RoutedMediaDelivery>
    let deliver: AsyncStream<RoutedMediaDelivery>.Continuation

    /// How long a subscription waits for its publisher's PeerConnection to come up at Janus.
    static let feedTimeout: Duration = .seconds(20)
    /// How long Janus gets to switch a subscription to the simulcast layer asked for before it is asked again.
    /// Janus switches on the layer's next key frame and requests one (a PLI) only when asked; a publisher may drop
    /// that request (Chromium ignores one within 300 ms of the last it honoured, and Janus sends many while a layer
    /// comes and goes), and then the switch would wait for a key frame nobody asks for.
    static let layerSwitchWait: Duration = .milliseconds(500)
    /// Most times a layer is asked for again (then the subscription keeps what Janus forwards; logged).
    static let maxLayerSwitchRetries = 6
    /// Most candidates kept for a subscription before its handle exists.
    static let maxPending = 64
    /// Most commands of one client connection waiting or running at once, by default (an offer and its
    /// candidates, answers and candidates of its subscriptions: a legitimate client stays far below it).
    static let defaultMaxPendingPerConnection = 256

    /// Most commands of one client connection waiting or running at once; ``submit(_:session:from:)`` refuses more.
    nonisolated var maxPendingPerConnection: Int { lanes.maxPerConnection }

    /// Drives `instances` (at least one; their order breaks placement ties).
    init(instances: [RoutedMediaConfiguration], logger: Logger,
         maxPendingPerConnection: Int = RoutedMedia.defaultMaxPendingPerConnection) {
        self.instances = instances
        links = Array(repeating: .idle, count: instances.count)
        placement = RoutedMediaPlacement(count: instances.count)
        self.logger = logger
        lanes = RoutedMediaLanes(maxPerConnection: maxPendingPerConnection)
        (deliveries, deliver) = AsyncStream.makeStream(of: RoutedMediaDelivery.self, bufferingPolicy: .unbounded)
    }

    /// The request deadline of the instance a session is placed on (of the first instance before placement).
    private func timeout(_ sessionID: String) -> Duration {
        .milliseconds(instances[placed[sessionID] ?? 0].requestTimeoutMs)
    }

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
        guard !stopped else { return }
        stopped = true
        let held = links
        links = Array(repeating: .stopped, count: instances.count)
        for case let .connecting(task) in held {
            _ = await task.value  // the attempt sees `stopped` and closes what it opened
        }
        for case let .connected(_, _, _, watcher) in held { watcher.cancel() }
        for id in Array(downstreams.keys) { await endDownstream(id) }
        for id in Array(upstreams.keys) { await endUpstream(id) }
        for (sessionID, room) in rooms {
            guard let index = placed[sessionID], case let .connected(_, _, admin, _) = held[index] else { continue }
            try? await admin.destroyRoom(room)
        }
        rooms.removeAll()
        placed.removeAll()
        for case let .connected(connection, session, _, _) in held {
            try? await session.destroy()
            await connection.close()
        }
        deliver.finish()
    }

    /// What is held now.
    func status() -> RoutedMediaStatus {
        var status = RoutedMediaStatus()
        status.rooms = rooms
        status.publishers = upstreams.values.filter { $0.publisher != nil }.count
        status.subscribers = downstreams.count
        status.placements = placed
        status.instancesConnected = links.map { link in
            if case .connected = link { return true }
            return false
        }
        status.connected = status.instancesConnected.contains(true)
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
        case let .subscriberPreferences(subscriberID, substream, temporal):
            guard downstreams[subscriberID] != nil else { return }
            downstreams[subscriberID]?.substream = substream
            downstreams[subscriberID]?.temporal = temporal
            await applySubstream(subscriberID)
        case let .substreamRelayed(subscriberID, handle, substream):
            guard let downstream = downstreams[subscriberID], downstream.subscriber?.handle.id == handle else { return }
            downstreams[subscriberID]?.relayed = substream
            if substream == downstream.substream { downstreams[subscriberID]?.layerCheck?.cancel() }
        case let .layerSwitchCheck(subscriberID, attempt):
            guard let downstream = downstreams[subscriberID], downstream.phase == .started,
                  let substream = downstream.substream, downstream.relayed != substream
            else { return }
            guard attempt <= Self.maxLayerSwitchRetries else {
                return logger.notice("the media router did not switch a subscription's simulcast layer", metadata: [
                    "subscriber_id": "\(subscriberID)", "substream": "\(substream)",
                    "relayed": "\(downstream.relayed.map(String.init) ?? "-")"])
            }
            await applySubstream(subscriberID, attempt: attempt)
        case let .unsubscribe(subscriberID):
            await endDownstream(subscriberID)
        case let .streamEnded(streamID, sessionID):
            mutedBeforeOffer.remove(streamID)
            for (id, downstream) in downstreams where downstream.streamID == streamID { await endDownstream(id) }
            await endUpstream(streamID)
            // The session's last stream (ended, unpublished, or failed at Janus before): its room goes now, not at
            // the session's expiry; a later publish places the session again and makes a new room.
            if !upstreams.values.contains(where: { $0.sessionID == sessionID }),
               !downstreams.values.contains(where: { $0.sessionID == sessionID }) {
                await leaveInstance(sessionID)
            }
        case let .sessionEnded(sessionID):
            for (id, downstream) in downstreams where downstream.sessionID == sessionID { await endDownstream(id) }
            for (id, upstream) in upstreams where upstream.sessionID == sessionID { await endUpstream(id) }
            await leaveInstance(sessionID)
        case let .publisherUp(streamID, handle):
            guard upstreams[streamID]?.publisher?.handle.id == handle else { return }
            upstreams[streamID]?.up = true
            for (id, downstream) in downstreams where downstream.streamID == streamID && downstream.phase == .waiting {
                await offer(id)
            }
        case let .upstreamLost(streamID, handle, reason):
            guard let upstream = upstreams[streamID], let publisher = upstream.publisher, publisher.handle.id == handle
            else { return }
            let janusSession = publisher.handle.session
            if !janusSession.isLive, let index = placed[upstream.sessionID],
               case let .connected(connection, session, _, _) = links[index], session.id == janusSession.id {
                // The handle's events ended with its Janus session: the instance is lost (its sessions may move).
                return await linkLost(index, janusSession.id, reason: connection.closeReason ?? .sessionClosed(session.id))
            }
            await loseUpstream(streamID, upstream, "the media router lost this stream's media path: \(reason)")
        case let .movingDeadline(streamID):
            guard let upstream = upstreams[streamID], upstream.moving != nil else { return }
            await loseUpstream(streamID, upstream, "the stream's media router instance was lost and its publisher did "
                               + "not offer again within \(Self.feedTimeout)")
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
        // A moderator's mute outlives the publisher's handle: a re-offer (a restart, a failover) is muted again.
        let muted = upstreams[streamID]?.audioMuted ?? (mutedBeforeOffer.remove(streamID) != nil)
        await endUpstream(streamID)
        var upstream = Upstream(sessionID: sessionID, connectionID: connectionID, upstreamID: upstreamID)
        upstream.simulcast = SimulcastSubstream.isSent(in: sdp)  // known at once: preferences may come meanwhile
        upstreams[streamID] = upstream
        do throws(JanusError) {
            let (session, room) = try await room(for: sessionID)
            let publisher = try await VideoRoomPublisher.attach(to: session)
            // Ended meanwhile (unpublished, or the link was lost and the stream failed already).
            guard upstreams[streamID] != nil else { return try await publisher.detach() }
            upstream.publisher = publisher
            upstreams[streamID] = upstream
            let joined = try await publisher.join(room: room, display: streamID)
            let answer = try await publisher.publish(offer: sdp, timeout: timeout(sessionID))
            guard upstreams[streamID]?.publisher?.handle.id == publisher.handle.id else { return }  // ended meanwhile
            upstream.feed = joined.id
            upstream.audioMid = Self.audioMid(in: answer)
            upstream.iceUfrag = Self.iceUfrag(in: sdp)
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
            if muted { await moderateAudio(streamID, mute: true) }
        } catch {
            await roomGone(error, sessionID: sessionID, except: streamID)
            guard let current = upstreams[streamID], current.upstreamID == upstreamID else { return }  // failed already
            failUpstream(streamID, current, "publishing to the media router failed: \(error)")
            await endUpstream(streamID)
        }
    }

    /// `streamID`'s upstream is lost for good: its subscribers and its publisher get 1570 with `message`, the stream
    /// is unpublished, and the handles go.
    private func loseUpstream(_ streamID: String, _ upstream: Upstream, _ message: String) async {
        // Subscribers first: once the upstream's failure unpublishes the stream, their subscriptions are gone.
        for (id, downstream) in downstreams where downstream.streamID == streamID {
            fail(id, connectionID: downstream.connectionID, message)
        }
        failUpstream(streamID, upstream, message)
        for (id, downstream) in downstreams where downstream.streamID == streamID { await endDownstream(id) }
        await endUpstream(streamID)
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
            current.cancelTasks()
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
            downstreams[subscriberID]?.relayed = nil
            let handleID = subscriber.handle.id, sessionID = downstream.sessionID
            downstreams[subscriberID]?.watcher = Task { [weak self] in
                for await case let .substream(_, substream) in subscriber.events {
                    self?.submit(.substreamRelayed(subscriberID: subscriberID, handle: handleID, substream: substream),
                                 session: sessionID)
                }
            }
            let subscription = try await subscriber.join(room: room, streams: [VideoRoomStreamRequest(feed: feed)],
                                                         timeout: timeout(downstream.sessionID))
            guard downstreams[subscriberID] != nil else { return }
            downstreams[subscriberID]?.videoMid = subscription.streams.first { $0.type == "video" }?.mid
            deliver.yield(.negotiation(connectionID: downstream.connectionID, streamID: downstream.streamID,
                                       subscriberID: subscriberID, kind: .offer, payload: subscription.offer))
        } catch {
            await roomGone(error, sessionID: downstream.sessionID)
            guard downstreams[subscriberID] != nil else { return }  // ended or failed meanwhile (its stream lost)
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
            try await subscriber.start(answer: answer, timeout: timeout(downstream.sessionID))
            guard downstreams[subscriberID] != nil else { return }
            downstreams[subscriberID]?.phase = .started
            let pending = downstreams[subscriberID]?.pending ?? []
            downstreams[subscriberID]?.pending = []
            for candidate in pending { await trickle(candidate, to: subscriber.handle) }
            await applySubstream(subscriberID)
        } catch {
            guard downstreams[subscriberID] != nil else { return }  // ended or failed meanwhile
            fail(subscriberID, connectionID: downstream.connectionID, "the media router refused the answer: \(error)")
            await endDownstream(subscriberID)
        }
    }

    /// Asks Janus to forward the subscription's chosen simulcast and temporal layers, once it is started. A refusal
    /// is logged and changes nothing else (the subscription keeps the layers it had). Until Janus says it forwards
    /// the layer, it is asked again every ``layerSwitchWait`` (`attempt` counts those), each time with a new key
    /// frame request to the publisher.
    private func applySubstream(_ subscriberID: String, attempt: Int = 0) async {
        guard let downstream = downstreams[subscriberID], downstream.phase == .started,
              let substream = downstream.substream, let mid = downstream.videoMid,
              let subscriber = downstream.subscriber
        else { return }
        downstream.layerCheck?.cancel()
        // Janus switches (and reports) layers of a simulcast upstream only: a single-layer one is never asked again.
        if upstreams[downstream.streamID]?.simulcast == true {
            let sessionID = downstream.sessionID
            downstreams[subscriberID]?.layerCheck = Task { [weak self] in
                try? await Task.sleep(for: Self.layerSwitchWait)
                guard !Task.isCancelled else { return }
                self?.submit(.layerSwitchCheck(subscriberID: subscriberID, attempt: attempt + 1), session: sessionID)
            }
        }
        do throws(JanusError) {
            try await subscriber.configure(mid: mid, substream: substream, temporal: downstream.temporal)
        } catch {
            downstreams[subscriberID]?.layerCheck?.cancel()
            logger.notice("the media router refused a simulcast layer", metadata: [
                "subscriber_id": "\(subscriberID)", "substream": "\(substream)",
                "temporal": "\(downstream.temporal.map(String.init) ?? "-")", "error": "\(error)"])
        }
    }

    // MARK: - Janus

    /// The Janus session of the instance `sessionID` is placed on (placing it first if needed) and its room there
    /// (created if needed).
    private func room(for sessionID: String) async throws(JanusError) -> (JanusSession, UInt64) {
        let (index, session, admin) = try await place(sessionID)
        if let room = rooms[sessionID] { return (session, room) }
        let room = try await admin.createRoom(VideoRoomSettings(description: "tokkit \(sessionID.prefix(32))"))
        guard placed[sessionID] == index else {  // its instance was lost meanwhile: the room went with it
            throw connectionLostReason(index) ?? .sessionClosed(session.id)
        }
        rooms[sessionID] = room
        logger.debug("janus room created", metadata: ["session_id": "\(sessionID)", "room": "\(room)",
                                                      "instance": "\(instances[index].url)"])
        return (session, room)
    }

    /// The instance `sessionID` is placed on and its link; a session not placed yet is placed now on the least
    /// loaded reachable instance (``RoutedMediaPlacement/candidates(now:)``, each tried once; one that cannot be
    /// reached is marked down). Throws the last failure when none could be reached.
    private func place(_ sessionID: String) async throws(JanusError) -> (Int, JanusSession, VideoRoomAdmin) {
        if let index = placed[sessionID] {
            do throws(JanusError) {
                let (session, admin) = try await connected(index)
                return (index, session, admin)
            } catch {
                unplace(sessionID, from: index)
                throw error
            }
        }
        var failure = JanusError.unreachable(url: "", reason: "no media router instance configured")
        placement.setHandles(handlesPerInstance())
        for index in placement.candidates(now: .now) {
            guard !stopped else { throw .cancelled }
            placed[sessionID] = index  // counted at once: sessions placed meanwhile see the load
            placement.placed(on: index)
            do throws(JanusError) {
                let (session, admin) = try await connected(index)
                placement.markReachable(index)
                guard placed[sessionID] == index else { throw connectionLostReason(index) ?? .cancelled }
                logger.info("routed session placed", metadata: ["session_id": "\(sessionID)",
                                                               "instance": "\(instances[index].url)"])
                return (index, session, admin)
            } catch {
                unplace(sessionID, from: index)
                if case .cancelled = error { throw error }
                placement.markUnreachable(index, now: .now)
                logger.warning("janus instance unreachable", metadata: ["instance": "\(instances[index].url)",
                                                                        "error": "\(error)"])
                failure = error
            }
        }
        throw failure
    }

    /// The routed streams and subscriptions of the sessions placed on each instance (their Janus handles, held or
    /// about to be), by index: the weight ``RoutedMediaPlacement`` adds to each instance's sessions.
    private func handlesPerInstance() -> [Int] {
        var counts = Array(repeating: 0, count: instances.count)
        for upstream in upstreams.values {
            if let index = placed[upstream.sessionID] { counts[index] += 1 }
        }
        for downstream in downstreams.values {
            if let index = placed[downstream.sessionID] { counts[index] += 1 }
        }
        return counts
    }

    /// `sessionID` holds nothing at Janus any more (its last stream ended, or it ended): it leaves its instance and
    /// its room is destroyed there (a refusal is logged).
    private func leaveInstance(_ sessionID: String) async {
        guard let index = placed.removeValue(forKey: sessionID) else { return }
        placement.released(from: index)
        guard let room = rooms.removeValue(forKey: sessionID), case let .connected(_, _, admin, _) = links[index]
        else { return }
        do throws(JanusError) {
            try await admin.destroyRoom(room)
            logger.debug("janus room destroyed", metadata: ["session_id": "\(sessionID)", "room": "\(room)"])
        } catch {
            logger.notice("janus room not destroyed", metadata: ["room": "\(room)", "error": "\(error)"])
        }
    }

    /// `sessionID` leaves instance `index` (if it is still placed there).
    private func unplace(_ sessionID: String, from index: Int) {
        guard placed[sessionID] == index else { return }
        placed[sessionID] = nil
        rooms[sessionID] = nil
        placement.released(from: index)
    }

    /// Why the link of `index` is not connected now, if it is not.
    private func connectionLostReason(_ index: Int) -> JanusError? {
        if case .connected = links[index] { return nil }
        return .transportClosed("the link to \(instances[index].url) was lost")
    }

    /// The link of instance `index`, connecting first if needed.
    private func connected(_ index: Int) async throws(JanusError) -> (JanusSession, VideoRoomAdmin) {
        let attempt: Task<Result<(JanusSession, VideoRoomAdmin), JanusError>, Never>
        switch links[index] {
        case let .connected(_, session, admin, _): return (session, admin)
        case .stopped: throw .cancelled
        case let .connecting(task): attempt = task
        case .idle:
            attempt = Task { await self.connect(index) }
            links[index] = .connecting(attempt)
        }
        return try await attempt.value.get()
    }

    /// One connect attempt to instance `index` (``Link/connecting(_:)``): the connection, a Janus session, the
    /// admin handle; then ``Link/connected(_:_:_:watcher:)`` with a task waiting for the session's end
    /// (``linkLost(_:_:reason:)``).
    private func connect(_ index: Int) async -> Result<(JanusSession, VideoRoomAdmin), JanusError> {
        let configuration = instances[index]
        let timeout = Duration.milliseconds(configuration.requestTimeoutMs)
        let options = JanusConnection.Options(apiSecret: configuration.apiSecret, connectTimeout: timeout,
                                              requestTimeout: timeout)
        var opened: JanusConnection?
        do throws(JanusError) {
            let connection = try await JanusConnection.connect(to: configuration.url, options: options, logger: logger)
            opened = connection
            let session = try await connection.createSession()
            let admin = try await VideoRoomAdmin.attach(to: session, adminKey: configuration.adminKey)
            guard case .connecting = links[index] else { throw .cancelled }  // stopped meanwhile
            let watcher = Task { [weak self] in
                let reason = await session.ended()
                await self?.linkLost(index, session.id, reason: reason)
            }
            links[index] = .connected(connection, session, admin, watcher: watcher)
            return .success((session, admin))
        } catch {
            if let opened { await opened.close() }
            if case .connecting = links[index] { links[index] = .idle }
            return .failure(error)
        }
    }

    /// The Janus session of instance `index`'s link ended (Janus timed it out after missed keepalives, a keepalive
    /// found it gone, three keepalives in a row failed (a paused Janus), the socket closed, Janus stopped reading
    /// it, Janus died). The instance is marked down and the link closed and forgotten (the next placement there
    /// connects again). The sessions placed on it leave it: when another instance is up their answered upstreams
    /// and those upstreams' subscriptions *move* (they keep their ids and wait, handle-less, for the publishers'
    /// next offers, see ``move(_:_:)``); every other routed stream on it fails and is unpublished and every other
    /// subscription fails (1570 with `reason`). The rooms, which outlive a Janus session when Janus itself lives on, are destroyed
    /// through a new link (best effort: a Janus that is gone took them with it).
    private func linkLost(_ index: Int, _ janusSession: UInt64, reason: JanusError) async {
        guard case let .connected(connection, session, _, _) = links[index], session.id == janusSession else { return }
        links[index] = .idle
        let now = ContinuousClock.now
        placement.markUnreachable(index, now: now, atLeast: RoutedMediaPlacement.lostBackoff)
        let lostSessions = Set(placed.filter { $0.value == index }.keys)
        let orphans = lostSessions.compactMap { rooms[$0] }
        for sessionID in lostSessions { unplace(sessionID, from: index) }
        let failover = placement.hasUpInstance(besides: index, now: now)
        logger.warning("janus session lost", metadata: [
            "instance": "\(instances[index].url)", "session": "\(janusSession)", "reason": "\(reason)",
            "sessions": "\(lostSessions.count)", "rooms": "\(orphans.count)", "failover": "\(failover)",
        ])
        let message = "the media router's session at Janus ended (\(reason))"
        // An upstream moves only if Janus had answered it (its publisher may have media to restart); one whose
        // offer was still in flight fails, as does everything when no other instance is up.
        let lost = upstreams.filter { lostSessions.contains($0.value.sessionID) }
        let moving = failover ? lost.filter { $0.value.feed != nil } : [:]
        let failing = lost.filter { moving[$0.key] == nil }
        let lostDownstreams = downstreams.filter { lostSessions.contains($0.value.sessionID) }
        let following = lostDownstreams.filter { moving[$0.value.streamID] != nil }
        move(moving, following)
        askToRestart(moving, reason: message)
        for (id, downstream) in lostDownstreams where following[id] == nil {
            downstreams[id] = nil
            downstream.cancelTasks()
            fail(id, connectionID: downstream.connectionID, message)
        }
        for (streamID, upstream) in failing {
            upstreams[streamID] = nil
            upstream.watcher?.cancel()
            upstream.moving?.cancel()
            failUpstream(streamID, upstream, message)
        }
        await connection.close()
        guard !orphans.isEmpty, !stopped else { return }
        do throws(JanusError) {
            // Reaching it to clean up does not end its down period: the moving sessions must not come back to
            // an instance that just lost them (RoutedMediaPlacement.lostBackoff).
            let (_, admin) = try await connected(index)
            for room in orphans { try? await admin.destroyRoom(room) }
        } catch {
            logger.notice("janus rooms of a lost session not destroyed", metadata: ["error": "\(error)"])
        }
    }

    /// Failover: the upstreams and subscriptions of sessions whose instance was lost drop their (dead) handles and
    /// wait. An upstream waits for its publisher's next offer (its media watchdog restarts it once Janus is
    /// silent), at most ``feedTimeout`` (``RoutedMediaCommand/movingDeadline(streamID:)``); a subscription waits
    /// for the new feed as after a publisher's restart (``resubscribe(to:)``), with a new deadline.
    private func move(_ lostUpstreams: [String: Upstream], _ lostDownstreams: [String: Downstream]) {
        for (streamID, var upstream) in lostUpstreams {
            upstream.watcher?.cancel()
            upstream.moving?.cancel()
            upstream.watcher = nil
            upstream.publisher = nil
            upstream.feed = nil
            upstream.up = false
            let sessionID = upstream.sessionID
            upstream.moving = Task { [weak self] in
                try? await Task.sleep(for: Self.feedTimeout)
                guard !Task.isCancelled else { return }
                self?.submit(.movingDeadline(streamID: streamID), session: sessionID)
            }
            upstreams[streamID] = upstream
        }
        for (id, var downstream) in lostDownstreams {
            downstream.cancelTasks()
            downstream.phase = .waiting
            downstream.subscriber = nil
            downstream.pending = []
            let sessionID = downstream.sessionID
            downstream.deadline = Task { [weak self] in
                try? await Task.sleep(for: Self.feedTimeout)
                guard !Task.isCancelled else { return }
                self?.submit(.subscriptionDeadline(subscriberID: id), session: sessionID)
            }
            downstreams[id] = downstream
        }
    }

    /// Janus answered "no such room" (426) in the session's room: the room went away at Janus behind our back (a
    /// room destroyed through Janus tells its participants, and their streams end through their handles' events;
    /// this is a room lost without a word). It is forgotten, so the session's next upstream creates a new one, and
    /// every answered upstream of the session but `except` (whose caller fails it), whose feed was in that room, is
    /// lost: 1570 to its publisher and its subscribers (the one whose `join` was refused among them), the stream
    /// unpublished. Before, only the refused request failed and the streams stayed listed with no feed behind them.
    private func roomGone(_ error: JanusError, sessionID: String, except: String? = nil) async {
        guard case .plugin(VideoRoomErrorCode.noSuchRoom, _) = error, let room = rooms.removeValue(forKey: sessionID)
        else { return }
        let lost = upstreams.filter { $0.value.sessionID == sessionID && $0.value.feed != nil && $0.key != except }
        logger.warning("janus room gone", metadata: ["session_id": "\(sessionID)", "room": "\(room)",
                                                     "streams": "\(lost.count)"])
        for (streamID, upstream) in lost {
            // Losing one suspends this actor: skip a stream that ended or offered again meanwhile.
            guard let current = upstreams[streamID], current.upstreamID == upstream.upstreamID,
                  current.publisher?.handle.id == upstream.publisher?.handle.id
            else { continue }
            await loseUpstream(streamID, current, "the media router's room is gone (\(error))")
        }
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
        downstream.cancelTasks()
        if let subscriber = downstream.subscriber { try? await subscriber.detach() }
    }

    private func endUpstream(_ streamID: String) async {
        guard let upstream = upstreams.removeValue(forKey: streamID) else { return }
        upstream.watcher?.cancel()
        upstream.moving?.cancel()
        if let publisher = upstream.publisher { try? await publisher.detach() }
    }
}
