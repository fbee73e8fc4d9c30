import Synchronization
import TokKitProtocol

// Publishing and subscribing: the registry of this client's publishers and subscribers.

extension Session {
    /// Publishes `publisher`'s stream and returns once the server created it (``Publisher/stream`` is set and
    /// the publisher's delegate got `streamCreated`). Everyone else sees ``SessionEvent/streamCreated(_:)``.
    ///
    /// Throws ``SessionError/notConnected`` (1010), ``SessionError/unableToPublish(_:cause:)`` (1500) when the role may
    /// not publish, the capturer cannot start or ``Publisher/audioBitrate`` is out of range,
    /// ``SessionError/illegalState(_:)`` when the publisher is already published, or what the server answered
    /// (``SessionError/invalidParameter(_:cause:)`` for a name over 1000 characters). The publisher's delegate and
    /// ``Publisher/events`` get ``PublisherEvent/failed(_:)`` too.
    public func publish(_ publisher: Publisher) async throws(SessionError) {
        let (status, caps) = state.withLock { ($0.status, $0.capabilities) }
        guard status == .connected else { throw .notConnected }
        guard caps.canPublish else { return try failPublish(publisher, .unableToPublish("the token's role may not publish")) }
        await iceHostNamesResolved()
        let d = try publisher.attach(to: self)
        do throws(SessionError) { try await publisher.startMedia() } catch {
            publisher.detach(from: self)
            return try failPublish(publisher, error)
        }
        // The capture rate the encoder runs at (read after the capturer initialised: its format may settle there);
        // the server maps subscribers' preferred frame rates to temporal layers with it.
        let result = await request(
            .publish(.init(name: d.name, hasAudio: d.hasAudio, hasVideo: d.hasVideo, videoType: d.videoType.wire,
                           videoDimensions: d.videoDimensions?.wire, frameRate: publisher.announcedFrameRate())),
            purpose: .publish(publisher))
        if case .failure(let error) = result {
            state.withLock { s in
                if let id = s.publishers.first(where: { $0.value === publisher })?.key { s.publishers[id] = nil }
            }
            publisher.detach(from: self)
            try failPublish(publisher, error)
        }
    }

    private func failPublish(_ publisher: Publisher, _ error: SessionError) throws(SessionError) {
        emit(.failed(error), for: publisher)
        throw error
    }

    /// Ends `publisher`'s stream and returns once the server confirmed; the publisher's delegate gets
    /// `streamDestroyed`, everyone else ``SessionEvent/streamDestroyed(_:)``, and the subscriptions to it end.
    /// Throws ``SessionError/publisherNotFound`` (1113) when it is not published in this session.
    public func unpublish(_ publisher: Publisher) async throws(SessionError) {
        let streamID: StreamID? = state.withLock { s in s.publishers.first { $0.value === publisher }?.key }
        guard let streamID else { throw .publisherNotFound }
        let result = await request(.unpublish(.init(streamID: streamID.rawValue)), purpose: .other)
        // The server's streamDestroyed normally did the rest already; make sure (for example after an error).
        state.withLock { s in
            if s.streams[streamID] != nil { applyStreamDestroyed(streamID, &s) }
            if let p = s.publishers.removeValue(forKey: streamID) { p.detach(from: self) }
        }
        switch result {
        case .success, .failure(.streamNotFound): break  // already gone is fine
        case .failure(let error): throw error
        }
    }

    /// Subscribes to `subscriber`'s stream and returns once the server accepted (the media negotiation with the
    /// publisher then runs; `subscriberDidConnect(toStream:)` follows when it completes).
    ///
    /// Throws ``SessionError/notConnected`` (1010), ``SessionError/unableToSubscribe(_:)`` (1600) when the role
    /// may not subscribe, ``SessionError/streamNotFound(_:)`` (1604) when the stream is gone, or
    /// ``SessionError/illegalState(_:)`` when the subscriber was used before. The subscriber's delegate gets
    /// `didFailWithError` too.
    public func subscribe(_ subscriber: Subscriber) async throws(SessionError) {
        let (status, caps, exists) = state.withLock {
            ($0.status, $0.capabilities, $0.streams[subscriber.stream.streamID] != nil)
        }
        guard status == .connected else { throw .notConnected }
        guard caps.canSubscribe else {
            return try failSubscribe(subscriber, .unableToSubscribe("the token's role may not subscribe"))
        }
        guard exists else { return try failSubscribe(subscriber, .streamNotFound(subscriber.stream.streamID.rawValue)) }
        await iceHostNamesResolved()
        let (streamID, audio, video) = try subscriber.attach(to: self)
        let result = await request(
            .subscribe(.init(streamID: streamID.rawValue, subscribeToAudio: audio, subscribeToVideo: video)),
            purpose: .subscribe(subscriber, streamID: streamID))
        if case .failure(let error) = result {
            _ = subscriber.end()
            try failSubscribe(subscriber, error, ended: true)
        }
    }

    /// Reports a failed subscribe and throws it; `ended`: the subscriber is used up, its event streams end.
    private func failSubscribe(_ subscriber: Subscriber, _ error: SessionError, ended: Bool = false) throws(SessionError) {
        emit(.failed(error), for: subscriber, last: ended)
        throw error
    }

    /// Stops receiving `subscriber`'s stream: its negotiation ends, the publisher's client is told, and the
    /// delegate gets `subscriberDidDisconnect(fromStream:)`. A subscriber that already ended in this session (its
    /// media failed, its stream was destroyed) is simply done. Throws ``SessionError/subscriberNotFound`` (1112)
    /// when it was never subscribed in this session.
    public func unsubscribe(_ subscriber: Subscriber) async throws(SessionError) {
        let subscriberID: SubscriberID? = state.withLock { s in
            guard let id = s.subscribers.first(where: { $0.value === subscriber })?.key else { return nil }
            endSubscriber(subscriberID: id, notifyServer: false, failure: nil, &s)
            return id
        }
        guard let subscriberID else {
            // Already gone from this session (media failure, stream ended): unsubscribing it is done.
            if subscriber.hasEnded(in: self) { return subscriber.forgetEndedSession() }
            throw .subscriberNotFound
        }
        subscriber.forgetEndedSession()
        let result = await request(.unsubscribe(.init(subscriberID: subscriberID.rawValue)), purpose: .other)
        if case .failure(let error) = result, error != .subscriberNotFound, error != .notConnected { throw error }
    }

    /// Ends one of this client's subscriptions: unregisters it, ends its negotiation and tells the delegate.
    func endSubscriber(subscriberID: SubscriberID, notifyServer: Bool, failure: SessionError?, _ s: inout SessionState) {
        let context = s.subscriberContexts.removeValue(forKey: subscriberID)
        if s.publisherSides[subscriberID] == nil { s.loopbackSenders[subscriberID] = nil }
        guard let subscriber = s.subscribers.removeValue(forKey: subscriberID),
            let phase = subscriber.end(), phase.isActive
        else { return }
        if let context { withNegotiator { $0.negotiationDidEnd(context) } }
        if notifyServer, s.status == .connected, let link = s.link {
            link.send(Self.encode(ClientRequest(.unsubscribe(.init(subscriberID: subscriberID.rawValue)))))
        }
        if let failure { emit(.failed(failure), for: subscriber) }
        emit(.disconnected, for: subscriber)
    }

    // MARK: - Moderation

    /// Moderator: removes `connection` from the session. Throws ``SessionError/unableToForceDisconnect(_:)``
    /// (1530) when the role is not moderator or the connection is gone.
    public func forceDisconnect(_ connection: Connection) async throws(SessionError) {
        guard capabilities.canForceDisconnect else {
            throw .unableToForceDisconnect("the token's role may not force a disconnect")
        }
        _ = try await request(.forceDisconnect(.init(connectionID: connection.connectionID.rawValue)), purpose: .other).get()
    }

    /// Moderator: ends `stream`. Throws ``SessionError/unableToForceUnpublish(_:)`` (1535) when the role is not
    /// moderator.
    public func forceUnpublish(_ stream: SessionStream) async throws(SessionError) {
        guard capabilities.canForceMute else {
            throw .unableToForceUnpublish("the token's role may not force an unpublish")
        }
        _ = try await request(.forceUnpublish(.init(streamID: stream.streamID.rawValue)), purpose: .other).get()
    }

    /// Moderator: turns `stream`'s audio off; its publisher gets ``SessionEvent/muteForced(_:)``. Throws
    /// ``SessionError/unableToForceMute(_:)`` (1540) when the role is not moderator.
    public func forceMute(_ stream: SessionStream) async throws(SessionError) {
        guard capabilities.canForceMute else { throw .unableToForceMute("the token's role may not force mute") }
        _ = try await request(.forceMute(.init(streamID: stream.streamID.rawValue)), purpose: .other).get()
    }

    // MARK: - Called by Publisher, Subscriber, NegotiationChannel

    /// A published publisher changed a property: tell the server (everyone hears it back as
    /// `streamPropertyChanged`).
    func publisherChanged(streamID: StreamID, _ change: StreamPropertyChange) {
        var update = ClientMessage.UpdateStream(streamID: streamID.rawValue)
        switch change {
        case .hasAudio(let v): update.hasAudio = v
        case .hasVideo(let v): update.hasVideo = v
        case .videoType(let v): update.videoType = v.wire
        case .videoDimensions(let v):
            guard let v else { return }  // the protocol cannot clear dimensions
            update.videoDimensions = v.wire
        }
        post(.updateStream(update))
    }

    /// A subscriber's effective video changed.
    func subscriberVideoChanged(_ subscriber: Subscriber, enabled: Bool, reason: SubscriberVideoEventReason) {
        state.withLock { _ in subscriberVideoChangedLocked(subscriber, enabled: enabled, reason: reason) }
    }

    func subscriberVideoChangedLocked(_ subscriber: Subscriber, enabled: Bool, reason: SubscriberVideoEventReason) {
        emit(enabled ? .videoEnabled(reason) : .videoDisabled(reason), for: subscriber)
    }

    func relayNegotiation(_ message: NegotiationMessage, for context: MediaNegotiationContext) throws(SessionError) {
        try state.withLock { s throws(SessionError) in
            let live = switch context.side {
            case .subscriber: s.subscriberContexts[context.subscriberID] != nil
            case .publisher: s.publisherSides[context.subscriberID] != nil
            }
            guard live else { throw .subscriberNotFound }
            guard s.status == .connected, let link = s.link else { throw .notConnected }
            let text = Self.encode(ClientRequest(.negotiation(.init(
                streamID: context.streamID.rawValue, subscriberID: context.subscriberID.rawValue, kind: message.kind.wire,
                payload: message.payload))))
            guard link.send(text) else { throw .internalError("the outgoing queue is full") }
            if s.subscriberContexts[context.subscriberID] != nil, s.publisherSides[context.subscriberID] != nil {
                s.loopbackSenders[context.subscriberID, default: []].append(context.side)
            }
        }
    }

    func negotiationReportedConnected(_ context: MediaNegotiationContext) {
        guard context.side == .subscriber else { return }
        state.withLock { s in
            guard let subscriber = s.subscribers[context.subscriberID], subscriber.markConnected() else { return }
            emit(.connected, for: subscriber)
        }
    }

    /// A connected subscriber's media was lost (`over` false) or came back (`over` true).
    func negotiationReportedOutage(_ context: MediaNegotiationContext, over: Bool) {
        guard context.side == .subscriber else { return }
        state.withLock { s in
            guard let subscriber = s.subscribers[context.subscriberID], subscriber.setReconnecting(!over) else { return }
            emit(over ? .reconnected : .reconnecting, for: subscriber)
        }
    }

    func negotiationReportedFailure(_ context: MediaNegotiationContext, error: SessionError) {
        state.withLock { s in
            switch context.side {
            case .subscriber:
                endSubscriber(subscriberID: context.subscriberID, notifyServer: true, failure: error, &s)
            case .publisher:
                let upstream = s.upstreams[context.subscriberID]
                endPublisherSide(subscriberID: context.subscriberID, &s)
                // A routed stream's one upstream failed: the publisher's media reaches nobody.
                if let upstream, let publisher = s.publishers[upstream] { emit(.failed(error), for: publisher) }
            }
        }
    }
}

// MARK: - Lookups for the media layer

extension Session {
    /// This client's publisher of stream `streamID`, while published.
    func publisher(streamID: StreamID) -> Publisher? {
        state.withLock { $0.publishers[streamID] }
    }

    /// This client's subscriber `subscriberID`, while subscribed.
    func subscriber(subscriberID: SubscriberID) -> Subscriber? {
        state.withLock { $0.subscribers[subscriberID] }
    }
}
