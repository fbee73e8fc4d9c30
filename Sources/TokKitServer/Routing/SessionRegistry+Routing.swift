import Logging
import TokKitProtocol

/// Routed sessions in the registry (Docs/Protocol.md 6.7): which streams are routed, which negotiation messages go to
/// ``RoutedMedia`` instead of the other client, and the media router's replies going out.
extension SessionRegistry {
    /// Whether streams published in `sessionID` now are routed: the session is `routed` and a Janus is configured
    /// (without one, routed sessions behave like relayed ones).
    func routesStreams(in sessionID: String) -> Bool {
        routing != nil && sessions[sessionID]?.description.mediaMode == .routed
    }

    /// A routed negotiation message from connection `id`: the publisher's upstream (`subscriberId` is the stream's
    /// upstream id) or a subscriber of a routed stream. Returns false when `negotiation` is not routed (the caller
    /// relays it); throws 1112 when it names a routed negotiation the sender is not part of.
    func routeNegotiation(_ negotiation: ClientMessage.Negotiation, from id: String) throws(ProtocolError) -> Bool {
        guard let routing else { return false }
        if let stream = streams[exactly: negotiation.streamID], let upstream = stream.upstreamID,
           upstream.isSameBytes(as: negotiation.subscriberID) {
            guard stream.info.connectionID == id else {
                throw ProtocolError(.subscriberNotFound, "no such subscription for this connection and stream")
            }
            try Validation.negotiationPayload(negotiation.payload)
            let command: RoutedMediaCommand
            switch negotiation.kind {
            case .offer:
                command = .publisherOffer(sessionID: stream.sessionID, streamID: stream.info.id, upstreamID: upstream,
                                          connectionID: id, sdp: negotiation.payload)
            case .candidate: command = .publisherCandidate(streamID: stream.info.id, candidate: negotiation.payload)
            case .endOfCandidates: command = .publisherCandidate(streamID: stream.info.id, candidate: nil)
            case .answer: throw ProtocolError(.illegalState, "a routed publisher offers; it never answers")
            }
            try submitRouted(command, routing, session: stream.sessionID, from: id)
            return true
        }
        guard let subscription = subscriptions[exactly: negotiation.subscriberID],
              let stream = streams[subscription.streamID], stream.upstreamID != nil
        else { return false }
        guard subscription.streamID.isSameBytes(as: negotiation.streamID), subscription.subscriber == id else {
            throw ProtocolError(.subscriberNotFound, "no such subscription for this connection and stream")
        }
        try Validation.negotiationPayload(negotiation.payload)
        let command: RoutedMediaCommand
        switch negotiation.kind {
        case .answer: command = .subscriberAnswer(subscriberID: subscription.id, sdp: negotiation.payload)
        case .candidate: command = .subscriberCandidate(subscriberID: subscription.id, candidate: negotiation.payload)
        case .endOfCandidates: command = .subscriberCandidate(subscriberID: subscription.id, candidate: nil)
        case .offer: throw ProtocolError(.illegalState, "the media router offers to routed subscribers")
        }
        try submitRouted(command, routing, session: stream.sessionID, from: id)
        return true
    }

    /// Most live subscriptions to routed streams one connection may hold at once; one more `subscribe` is refused
    /// with 1430 (6.7). Each one holds a subscriber handle at the media router; a client subscribes once per stream
    /// it shows, far below this.
    static var maxRoutedSubscriptionsPerConnection: Int { 128 }

    /// Queues a new routed subscription's start at the media router, counted against its subscriber; 1430 when
    /// that connection already holds ``maxRoutedSubscriptionsPerConnection`` routed subscriptions or has
    /// ``RoutedMedia/maxPendingPerConnection`` routed messages waiting (the `subscribe` is refused, nothing is kept).
    func submitRoutedSubscribe(_ subscription: SubscriptionRecord, in sessionID: String) throws(ProtocolError) {
        guard let routing else { return }
        let held = connections[subscription.subscriber]?.subscriberIDs.count(where: { subscriberID in
            guard let streamID = subscriptions[subscriberID]?.streamID else { return false }
            return streams[streamID]?.upstreamID != nil
        }) ?? 0
        guard held < Self.maxRoutedSubscriptionsPerConnection else {
            throw ProtocolError(.limitReached, "too many subscriptions to routed streams (at most "
                                + "\(Self.maxRoutedSubscriptionsPerConnection) per connection)")
        }
        try submitRouted(.subscribe(sessionID: sessionID, streamID: subscription.streamID, subscriberID: subscription.id,
                                    connectionID: subscription.subscriber),
                         routing, session: sessionID, from: subscription.subscriber)
    }

    /// A routed subscription's preferences become the simulcast layer (``SimulcastSubstream``, from the preferred
    /// resolution) and the temporal layer (``SimulcastTemporalLayer``, from the preferred frame rate) the media
    /// router forwards to it; relayed subscriptions accept them and nothing changes.
    func routeSubscriberPreferences(_ preferences: ClientMessage.SubscriberPreferences,
                                    of subscription: SubscriptionRecord) throws(ProtocolError) {
        guard let routing, let stream = streams[subscription.streamID], stream.upstreamID != nil else { return }
        let substream = SimulcastSubstream.choose(published: stream.info.videoDimensions,
                                                  preferred: preferences.preferredResolution)
        let temporal = SimulcastTemporalLayer.choose(preferredFrameRate: preferences.preferredFrameRate,
                                                     publisherFrameRate: stream.info.frameRate
                                                         ?? SimulcastTemporalLayer.nominalPublisherFrameRate)
        try submitRouted(.subscriberPreferences(subscriberID: subscription.id, substream: substream,
                                                temporal: temporal), routing,
                         session: stream.sessionID, from: subscription.subscriber)
    }

    /// Queues a client's routed negotiation message; 1430 when that client already has
    /// ``RoutedMedia/maxPendingPerConnection`` of them waiting for the media router (the message is dropped: the
    /// client may send it again later).
    private func submitRouted(_ command: RoutedMediaCommand, _ routing: RoutedMedia, session: String,
                              from id: String) throws(ProtocolError) {
        guard routing.submit(command, session: session, from: id) else {
            throw ProtocolError(.limitReached, "too many messages waiting for the media router "
                                + "(at most \(routing.maxPendingPerConnection) per connection); try again later")
        }
    }

    /// Sends a media router's reply to its client, unless the subscription or upstream it names ended meanwhile.
    func deliverRouted(_ delivery: RoutedMediaDelivery) {
        switch delivery {
        case let .negotiation(connectionID, streamID, subscriberID, kind, payload):
            guard isLiveRoutedNegotiation(subscriberID, streamID: streamID, connectionID: connectionID) else { return }
            send(.negotiation(.init(streamID: streamID, subscriberID: subscriberID, kind: kind, payload: payload,
                                    from: "")), to: connectionID)
        case let .failure(connectionID, subscriberID, error):
            guard connections[connectionID] != nil else { return }
            metrics.refused(error.code, via: .websocket)
            send(.error(.init(rid: nil, error, subscriberID: subscriberID)), to: connectionID)
        case let .upstreamFailed(streamID, upstreamID):
            guard let stream = streams[streamID], stream.upstreamID == upstreamID else { return }
            logger.notice("routed stream unpublished: its upstream failed", metadata: ["stream_id": "\(streamID)"])
            removeStream(streamID, reason: .forceUnpublished)
        case let .mediaRestart(connectionID, streamID, upstreamID, iceUfrag, reason):
            guard let stream = streams[streamID], stream.upstreamID == upstreamID,
                  stream.info.connectionID == connectionID
            else { return }
            send(.mediaRestart(.init(streamID: streamID, subscriberID: upstreamID, iceUfrag: iceUfrag, reason: reason)),
                 to: connectionID)
        }
    }

    private func isLiveRoutedNegotiation(_ subscriberID: String, streamID: String, connectionID: String) -> Bool {
        if let subscription = subscriptions[subscriberID] {
            return subscription.streamID == streamID && subscription.subscriber == connectionID
        }
        guard let stream = streams[streamID] else { return false }
        return stream.upstreamID == subscriberID && stream.info.connectionID == connectionID
    }
}
