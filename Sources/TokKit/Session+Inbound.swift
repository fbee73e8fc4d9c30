import Logging
import Synchronization
import TokKitICE
import TokKitProtocol

// How a session applies what the server sends. Everything here runs on the current link's task, one message
// at a time; state changes and the events they cause happen under the state lock, so events keep their order.

extension Session: SignalingLinkOwner {
    func link(_ link: SignalingLink, received message: ServerMessage) {
        state.withLock { s in
            guard link.generation == s.generation else { return }
            switch message {
            case .connected(let m): applyConnected(m, link: link, &s)
            case .connectionCreated(let m): applyConnectionCreated(Connection(m.connection), &s)
            case .connectionDestroyed(let m): applyConnectionDestroyed(m, &s)
            case .streamCreated(let m): applyStreamCreated(m.stream, &s)
            case .streamDestroyed(let m): applyStreamDestroyed(StreamID(m.stream.id), &s)
            case .streamPropertyChanged(let m): applyStreamChanged(m.stream, &s)
            case .signal(let m):
                emit(.signalReceived(type: m.type, data: m.data, from: m.from.map { s.sender(ConnectionID($0)) }))
            case .subscribe(let m): applySubscribeRequest(m, &s)
            case .unsubscribe(let m): endPublisherSide(subscriberID: SubscriberID(m.subscriberID), &s)
            case .negotiation(let m): applyNegotiation(m, &s)
            case .muteForced(let m): applyMuteForced(streamID: StreamID(m.streamID), &s)
            case .mediaRestart(let m): applyMediaRestart(m, &s)
            case .archiveStarted(let m): emit(.archiveStarted(id: ArchiveID(m.archiveID), name: m.name))
            case .archiveStopped(let m): emit(.archiveStopped(id: ArchiveID(m.archiveID)))
            case .ack(let m): applyAck(m, &s)
            case .error(let m): applyError(m, link: link, &s)
            case .pong: s.pongs += 1
            }
        }
    }

    func link(_ link: SignalingLink, closedWith error: SessionError?) {
        enum Next { case nothing, finish, reconnect }
        let next: Next = state.withLock { s in
            guard link.generation == s.generation else { return .nothing }
            s.link = nil
            if let opening = s.opening {
                // The socket closed before `connected`.
                s.opening = nil
                let failure = s.openingError ?? error ?? .connectionFailed("the server closed the socket")
                switch s.status {
                case .connecting:
                    s.status = .failed
                    emit(.failed(failure))
                    opening.resume(returning: .failure(failure))
                    return .nothing
                case .reconnecting:
                    opening.resume(returning: .failure(failure))
                    return .nothing
                case .disconnecting:
                    opening.resume(returning: .failure(.connectionFailed("disconnect() was called while connecting")))
                    return .finish
                case .notConnected, .connected, .failed:
                    opening.resume(returning: .failure(failure))
                    return .finish
                }
            }
            switch s.status {
            case .connected where !s.closedByServer && settings.reconnectPolicy.maxAttempts > 0:
                s.status = .reconnecting
                emit(.reconnecting)
                // Requests in flight are lost with the socket. Retried signals stay pending and are sent again
                // after the resume; everything else fails now.
                for (rid, p) in s.pending {
                    if case .signal(retry: true) = p.purpose { continue }
                    s.pending[rid] = nil
                    p.continuation.resume(returning: .failure(Self.failure(for: p.purpose, "the connection dropped")))
                }
                for (_, c) in s.awaitingStream { c.resume(returning: .failure(.connectionDropped)) }
                s.awaitingStream.removeAll()
                return .reconnect
            case .reconnecting:
                return .nothing  // a resume attempt's socket; the reconnect loop goes on
            default:
                return .finish
            }
        }
        switch next {
        case .nothing: break
        case .finish: finishDisconnect(generation: link.generation)
        case .reconnect: startReconnecting()
        }
    }

    // MARK: - Connection lifecycle

    private func applyConnected(_ m: ServerMessage.Connected, link: SignalingLink, _ s: inout SessionState) {
        guard let opening = s.opening else { return }
        s.opening = nil
        let me = Connection(m.connection)
        s.role = m.role
        s.resumeToken = m.resumeToken
        s.resumeGrace = .milliseconds(m.resumeGrace)
        s.iceServers = (m.iceServers ?? []).map {
            ICEServer(urls: $0.urls, username: $0.username ?? "", credential: $0.credential ?? "")
        }
        resolveICEHostNames(&s)
        link.established(
            heartbeatInterval: .milliseconds(max(100, m.heartbeatInterval)),
            heartbeatTimeout: .milliseconds(max(200, m.heartbeatTimeout)))
        let others = m.connections.map(Connection.init)
        if s.status == .reconnecting, m.resumed, s.me?.connectionID == me.connectionID {
            s.me = me
            s.status = .connected
            reconcile(others: others, streams: m.streams, &s)
            emit(.reconnected)
            signalingResumed()
            // Signals held while reconnecting (and those lost in flight) go out now, in the order they were made.
            for rid in s.pending.keys.sorted() {
                guard let p = s.pending[rid], !link.send(p.text) else { continue }
                s.pending[rid] = nil
                p.continuation.resume(returning: .failure(.unableToSendSignal("the outgoing queue is full")))
            }
            opening.resume(returning: .success(()))
            return
        }
        // A fresh connection.
        s.me = me
        s.status = .connected
        startNetworkMonitor(&s)
        startStatisticsTimer(&s)
        s.connections.removeAll()
        s.connectionOrder.removeAll()
        s.streams.removeAll()
        emit(.connected(me))
        for c in others where s.addConnection(c) { emit(.connectionCreated(c)) }
        for info in m.streams { applyStreamCreated(info, &s) }
        opening.resume(returning: .success(()))
    }

    /// After a resume: turns the difference between what we knew and the server's snapshot into events.
    private func reconcile(others: [Connection], streams: [StreamInfo], _ s: inout SessionState) {
        let liveConnections = Set(others.map(\.connectionID))
        let liveStreams = Dictionary(streams.map { (StreamID($0.id), $0) }, uniquingKeysWith: { a, _ in a })
        for id in s.streams.keys.sorted() where liveStreams[id] == nil { applyStreamDestroyed(id, &s) }
        for id in s.connectionOrder where !liveConnections.contains(id) {
            if let c = s.removeConnection(id) { emit(.connectionDestroyed(c)) }
        }
        for c in others where s.addConnection(c) { emit(.connectionCreated(c)) }
        for info in streams {
            if s.streams[StreamID(info.id)] == nil { applyStreamCreated(info, &s) } else { applyStreamChanged(info, &s) }
        }
    }

    private func applyConnectionCreated(_ c: Connection, _ s: inout SessionState) {
        if s.addConnection(c) { emit(.connectionCreated(c)) }
    }

    private func applyConnectionDestroyed(_ m: ServerMessage.ConnectionDestroyed, _ s: inout SessionState) {
        let id = ConnectionID(m.connection.id)
        if id == s.me?.connectionID {
            // This client was removed (force disconnect or server shutdown): the socket closes next, for good.
            s.closedByServer = true
            return
        }
        for (streamID, stream) in s.streams where stream.connection.connectionID == id {
            applyStreamDestroyed(streamID, &s)
        }
        for (subscriberID, ctx) in s.publisherSides where ctx.peerConnectionID == id {
            endPublisherSide(subscriberID: subscriberID, &s)
        }
        if let c = s.removeConnection(id) { emit(.connectionDestroyed(c)) }
    }

    // MARK: - Streams

    private func applyStreamCreated(_ info: StreamInfo, _ s: inout SessionState) {
        let id = StreamID(info.id), ownerID = ConnectionID(info.connectionID)
        guard s.streams[id] == nil else { return applyStreamChanged(info, &s) }
        let isMine = ownerID == s.me?.connectionID
        guard let owner = s.connection(ownerID) else {
            logger.warning("stream \(info.id) of unknown connection \(info.connectionID)")
            return
        }
        let stream = SessionStream(info, connection: owner)
        s.streams[id] = stream
        guard isMine else { return emit(.streamCreated(stream)) }
        guard let publisher = s.publishers[id] else { return }
        publisher.setStream(stream)
        emit(.streamCreated(stream), for: publisher)
        if let waiter = s.awaitingStream.removeValue(forKey: id) {
            waiter.resume(returning: .success(ServerMessage.Ack(rid: 0, streamID: info.id)))
        }
    }

    func applyStreamDestroyed(_ streamID: StreamID, _ s: inout SessionState) {
        guard let stream = s.streams.removeValue(forKey: streamID) else { return }
        if stream.connection.connectionID == s.me?.connectionID {
            for (subscriberID, ctx) in s.publisherSides where ctx.streamID == streamID {
                endPublisherSide(subscriberID: subscriberID, &s)
            }
            if let publisher = s.publishers.removeValue(forKey: streamID) {
                publisher.detach(from: self)
                emit(.streamDestroyed(stream), for: publisher)
            }
            return
        }
        for (subscriberID, subscriber) in s.subscribers where subscriber.stream.streamID == streamID {
            endSubscriber(subscriberID: subscriberID, notifyServer: false, failure: nil, &s)
        }
        emit(.streamDestroyed(stream))
    }

    private func applyStreamChanged(_ info: StreamInfo, _ s: inout SessionState) {
        let id = StreamID(info.id)
        guard let old = s.streams[id] else { return }
        let new = SessionStream(info, connection: old.connection)
        let changes = old.changes(to: new)
        guard !changes.isEmpty else { return }
        s.streams[id] = new
        if let publisher = s.publishers[id] { publisher.setStream(new) }
        for change in changes { emit(.streamPropertyChanged(new, change)) }
        for subscriber in s.subscribers.values where subscriber.stream.streamID == id {
            if let enabled = subscriber.update(stream: new) {
                subscriberVideoChangedLocked(subscriber, enabled: enabled, reason: .publisherPropertyChanged)
            }
        }
    }

    private func applyMuteForced(streamID: StreamID, _ s: inout SessionState) {
        guard let publisher = s.publishers[streamID] else { return }
        publisher.applyForcedMute()
        emit(.muteForced(MuteForcedInfo(active: true)))
    }

    /// Routed (Protocol.md 6.7 step 5): the media router lost this client's upstream; its link restarts now if its
    /// current peer made the offer named by `iceUfrag` (else the message is stale and nothing happens).
    private func applyMediaRestart(_ m: ServerMessage.MediaRestart, _ s: inout SessionState) {
        let upstreamID = SubscriberID(m.subscriberID)
        guard s.upstreams[upstreamID]?.rawValue == m.streamID, let context = s.publisherSides[upstreamID] else { return }
        logger.notice("the media router asks to restart upstream \(m.subscriberID): \(m.reason)")
        let ufrag = m.iceUfrag
        withNegotiator { ($0 as? WebRTCNegotiator)?.restartRequested(context, iceUfrag: ufrag) }
    }

    // MARK: - Replies

    private func applyAck(_ ack: ServerMessage.Ack, _ s: inout SessionState) {
        guard let p = s.pending.removeValue(forKey: ack.rid) else { return }
        switch p.purpose {
        case .publish(let publisher):
            guard let streamID = ack.streamID.map(StreamID.init) else {
                return p.continuation.resume(returning: .failure(.internalError("publish ack without a stream id")))
            }
            s.publishers[streamID] = publisher
            if let upstreamID = ack.subscriberID.map(SubscriberID.init) {
                startUpstream(upstreamID, streamID: streamID, &s)
            }
            if let stream = s.streams[streamID] {
                // Our own streamCreated came first.
                publisher.setStream(stream)
                emit(.streamCreated(stream), for: publisher)
                p.continuation.resume(returning: .success(ack))
            } else {
                s.awaitingStream[streamID] = p.continuation
            }
        case .subscribe(let subscriber, let streamID):
            guard let subscriberID = ack.subscriberID.map(SubscriberID.init), subscriber.accepted(subscriberID: subscriberID),
                let stream = s.streams[streamID]
            else {
                return p.continuation.resume(returning: .failure(.streamNotFound("the stream ended while subscribing")))
            }
            // Preferences set before the server knew the subscription follow its ack.
            if subscriber.hasPreferences {
                subscriber.preferencesSender.schedule(session: self, subscriber: subscriber, id: subscriberID)
            }
            let context = MediaNegotiationContext(
                side: .subscriber, streamID: streamID, subscriberID: subscriberID,
                peerConnectionID: stream.connection.connectionID, wantsAudio: subscriber.subscribeToAudio,
                wantsVideo: subscriber.subscribeToVideo)
            s.subscribers[subscriberID] = subscriber
            s.subscriberContexts[subscriberID] = context
            let channel = NegotiationChannel(context: context, session: self)
            withNegotiator { $0.negotiationDidStart(context, channel: channel) }
            p.continuation.resume(returning: .success(ack))
        case .signal, .other:
            p.continuation.resume(returning: .success(ack))
        }
    }

    private func applyError(_ reply: ServerMessage.ErrorReply, link: SignalingLink, _ s: inout SessionState) {
        let error = SessionError(reply)
        if let rid = reply.rid, let p = s.pending.removeValue(forKey: rid) {
            p.continuation.resume(returning: .failure(error))
            return
        }
        if let subscriberID = reply.subscriberID.map(SubscriberID.init) {
            // Routed: the media router failed this subscription or this client's upstream (Protocol.md 6.7).
            if s.subscriberContexts[subscriberID] != nil {
                return endSubscriber(subscriberID: subscriberID, notifyServer: true, failure: error, &s)
            }
            if let streamID = s.upstreams[subscriberID] {
                endPublisherSide(subscriberID: subscriberID, &s)
                if let publisher = s.publishers[streamID] { emit(.failed(error), for: publisher) }
                return
            }
        }
        if s.opening != nil {
            // `connect` / `resume` refused: the server closes the socket; report this error then.
            s.openingError = error
            link.close()
            return
        }
        logger.warning("server error: \(error)")
    }

    // MARK: - Negotiation relay

    private func applySubscribeRequest(_ m: ServerMessage.SubscriptionEvent, _ s: inout SessionState) {
        let streamID = StreamID(m.streamID), subscriberID = SubscriberID(m.subscriberID)
        guard s.publishers[streamID] != nil || s.streams[streamID]?.connection.connectionID == s.me?.connectionID,
            s.publisherSides[subscriberID] == nil
        else { return }
        let context = MediaNegotiationContext(
            side: .publisher, streamID: streamID, subscriberID: subscriberID, peerConnectionID: ConnectionID(m.from),
            wantsAudio: m.subscribeToAudio ?? true, wantsVideo: m.subscribeToVideo ?? true)
        s.publisherSides[subscriberID] = context
        let channel = NegotiationChannel(context: context, session: self)
        withNegotiator { $0.negotiationDidStart(context, channel: channel) }
    }

    private func applyNegotiation(_ m: ServerMessage.Negotiation, _ s: inout SessionState) {
        // A connection may subscribe to its own stream: then both ends are here, told apart by the sender.
        let subscriberID = SubscriberID(m.subscriberID)
        let mine = s.subscriberContexts[subscriberID]
        let theirs = s.publisherSides[subscriberID]
        let context: MediaNegotiationContext
        if let mine, let theirs {
            // Loopback: the server keeps order, so this is the oldest message one of our ends sent; it is for
            // the other end.
            let sender = s.loopbackSenders[subscriberID]?.popFirst() ?? .publisher
            context = sender == .publisher ? mine : theirs
        } else if let c = mine ?? theirs, c.streamID.rawValue == m.streamID {
            context = c
        } else {
            return  // the subscription already ended
        }
        if theirs == nil, m.kind == .offer, m.from.isEmpty {
            s.subscribers[subscriberID]?.routedOfferArrived()  // routed: the media router offers (6.7)
        }
        let message = NegotiationMessage(kind: .init(m.kind), payload: m.payload)
        let channel = NegotiationChannel(context: context, session: self)
        withNegotiator { $0.negotiation(context, didReceive: message, channel: channel) }
    }

    /// A routed stream (its publish `ack` carried an upstream id): this client negotiates once, with the media
    /// router, as the publisher's end of the negotiation `upstreamID`; no subscriber ever asks it to offer.
    private func startUpstream(_ upstreamID: SubscriberID, streamID: StreamID, _ s: inout SessionState) {
        guard s.publisherSides[upstreamID] == nil, let me = s.me else { return }
        var upstream = MediaNegotiationContext(
            side: .publisher, streamID: streamID, subscriberID: upstreamID, peerConnectionID: me.connectionID,
            wantsAudio: true, wantsVideo: true)
        upstream.isUpstream = true
        let context = upstream
        s.publisherSides[upstreamID] = context
        s.upstreams[upstreamID] = streamID
        let channel = NegotiationChannel(context: context, session: self)
        withNegotiator { $0.negotiationDidStart(context, channel: channel) }
    }

    func endPublisherSide(subscriberID: SubscriberID, _ s: inout SessionState) {
        s.upstreams[subscriberID] = nil
        guard let context = s.publisherSides.removeValue(forKey: subscriberID) else { return }
        if s.subscriberContexts[subscriberID] == nil { s.loopbackSenders[subscriberID] = nil }
        withNegotiator { $0.negotiationDidEnd(context) }
    }
}
