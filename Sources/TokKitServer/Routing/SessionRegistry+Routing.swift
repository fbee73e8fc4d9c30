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
            switch negotiation.kind {
            case .offer:
                routing.submit(.publisherOffer(sessionID: stream.sessionID, streamID: stream.info.id,
                                               upstreamID: upstream, connectionID: id, sdp: negotiation.payload))
            case .candidate: routing.submit(.publisherCandidate(streamID: stream.info.id, candidate: negotiation.payload))
            case .endOfCandidates: routing.submit(.publisherCandidate(streamID: stream.info.id, candidate: nil))
            case .answer: throw ProtocolError(.illegalState, "a routed publisher offers; it never answers")
            }
            return true
        }
        guard let subscription = subscriptions[exactly: negotiation.subscriberID],
              streams[subscription.streamID]?.upstreamID != nil
        else { return false }
        guard subscription.streamID.isSameBytes(as: negotiation.streamID), subscription.subscriber == id else {
            throw ProtocolError(.subscriberNotFound, "no such subscription for this connection and stream")
        }
        try Validation.negotiationPayload(negotiation.payload)
        switch negotiation.kind {
        case .answer: routing.submit(.subscriberAnswer(subscriberID: subscription.id, sdp: negotiation.payload))
        case .candidate: routing.submit(.subscriberCandidate(subscriberID: subscription.id, candidate: negotiation.payload))
        case .endOfCandidates: routing.submit(.subscriberCandidate(subscriberID: subscription.id, candidate: nil))
        case .offer: throw ProtocolError(.illegalState, "the media router offers to routed subscribers")
        }
        return true
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
