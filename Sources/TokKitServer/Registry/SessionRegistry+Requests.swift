import Logging
import TokKitProtocol

/// WebSocket requests: the state machine of ``ConnectionState`` and the role checks of Docs/Protocol.md, 6.3.
extension SessionRegistry {
    /// Handles one decoded client request arriving on `socket`.
    func receive(_ request: ClientRequest, on socket: SocketID, now: ContinuousClock.Instant = .now) {
        guard let id = sockets[socket], connections[id] != nil else { return }
        connections[id]?.lastSeen = now
        let rid = request.rid
        guard let connection = connections[id] else { return }
        switch (connection.state, request.message) {
        case let (_, .ping(ping)):
            send(.pong(.init(seq: ping.seq)), to: id)
            ack(rid, to: id)  // 6.1: every request with a rid gets exactly one ack or error
        case let (.connecting, .connect(connect)):
            handleConnect(connect, rid: rid, id: id, now: now)
        case let (.connecting, .resume(resume)):
            handleResume(resume, rid: rid, provisional: id, socket: socket, now: now)
        case (.connecting, _):
            reply(rid, error: ProtocolError(.notConnected, "send connect or resume first"), to: id)
        case (.connected, .connect), (.connected, .resume):
            reply(rid, error: ProtocolError(.illegalState, "already connected"), to: id)
        case (.connected, .disconnect):
            ack(rid, to: id)  // before the connection's own connectionDestroyed and the close
            destroy(id, reason: .clientDisconnected)
        case (.connected, _):
            guard let membership = connection.membership else { return }
            do throws(ProtocolError) {
                try handleMemberRequest(request.message, rid: rid, id: id, membership: membership)
            } catch {
                reply(rid, error: error, to: id)
            }
        case (.awaitingResume, _), (.closed, _):
            break
        }
    }

    /// A message that could not be decoded: `error` 1011, socket kept.
    func receiveMalformed(_ failure: WireCodec.RequestFailure, on socket: SocketID, now: ContinuousClock.Instant = .now) {
        guard let id = sockets[socket] else { return }
        connections[id]?.lastSeen = now
        reply(failure.rid, error: failure.error, to: id)
    }

    private func handleConnect(_ connect: ClientMessage.Connect, rid: Int?, id: String, now: ContinuousClock.Instant) {
        do throws(ProtocolError) {
            guard ProtocolVersion.supported.contains(connect.version) else {
                throw ProtocolError(.incompatibleVersion, "protocol version \(connect.version) is not supported")
            }
            guard authority.isAPIKey(connect.apiKey) else { throw ProtocolError(.authorizationFailure, "unknown API key") }
            guard sessions[exactly: connect.sessionID] != nil else { throw ProtocolError(.invalidSessionID, "unknown session id") }
            let claims = try authority.verify(connect.token, now: WallClock.seconds())
            guard claims.sessionID.isSameBytes(as: connect.sessionID) else {
                throw ProtocolError(.authorizationFailure, "token is for another session")
            }
            guard sessions[connect.sessionID]?.connectionIDs.count ?? 0 < configuration.maxConnectionsPerSession else {
                throw ProtocolError(.limitReached, "session is full")
            }
            let info = ConnectionInfo(id: id, creationTime: WallClock.milliseconds(), data: claims.connectionData)
            let membership = ConnectionRecord.Membership(
                sessionID: connect.sessionID, role: claims.role, info: info, resumeToken: RandomID.make(bytes: 32),
                hidden: claims.hidden == true)
            connections[id]?.membership = membership
            connections[id]?.state = .connected
            connections[id]?.label?.set(connection: id, session: connect.sessionID)
            sendConnected(id, resumed: false)
            ack(rid, to: id)
            announceRecording(to: id)
            if !membership.hidden {
                broadcast(.connectionCreated(.init(connection: info)), in: connect.sessionID, except: id)
            }
            sessions[connect.sessionID]?.connectionIDs.append(id)
            metrics.connected()
            logger.debug("connected", metadata: logMetadata(id, ["role": "\(claims.role.rawValue)"]))
        } catch {
            // The session asked for, when it exists (a client's string is not echoed into the log otherwise).
            var metadata = logMetadata(id, ["code": "\(error.code.rawValue)", "reason": "\(error.message)"])
            if sessions[exactly: connect.sessionID] != nil {
                metadata[ConnectionLabel.sessionKey] = .string(connect.sessionID)
            }
            logger.debug("connect refused", metadata: metadata)
            reply(rid, error: error, to: id)
            reject(id, code: .policyViolation)
        }
    }

    private func handleResume(
        _ resume: ClientMessage.Resume, rid: Int?, provisional: String, socket: SocketID, now: ContinuousClock.Instant
    ) {
        guard ProtocolVersion.supported.contains(resume.version) else {
            reply(rid, error: ProtocolError(.incompatibleVersion, "protocol version not supported"), to: provisional)
            return reject(provisional, code: .policyViolation)
        }
        guard let target = connections[exactly: resume.connectionID], let membership = target.membership,
              authority.secretsMatch(resume.resumeToken, membership.resumeToken)
        else {
            reply(rid, error: ProtocolError(.resumeFailed, "cannot resume this connection"), to: provisional)
            return reject(provisional, code: .policyViolation)
        }
        switch target.state {
        case .connected:
            // Takeover: the old socket goes away, the connection moves to the new one.
            if let old = target.socket { sockets[old] = nil }
            target.outbox?.close(.policyViolation)
        case .awaitingResume:
            break
        case .connecting, .closed:
            reply(rid, error: ProtocolError(.resumeFailed, "cannot resume this connection"), to: provisional)
            return reject(provisional, code: .policyViolation)
        }
        guard let fresh = connections.removeValue(forKey: provisional) else { return }
        sockets[socket] = target.id
        connections[target.id]?.socket = socket
        connections[target.id]?.outbox = fresh.outbox
        connections[target.id]?.label = fresh.label
        connections[target.id]?.activity = fresh.activity
        fresh.label?.set(connection: target.id, session: membership.sessionID)
        connections[target.id]?.state = .connected
        connections[target.id]?.lastSeen = now
        connections[target.id]?.membership?.resumeToken = RandomID.make(bytes: 32)
        sendConnected(target.id, resumed: true)
        ack(rid, to: target.id)
        announceRecording(to: target.id)
        metrics.resumed()
        logger.debug("resumed", metadata: logMetadata(target.id))
    }

    private func sendConnected(_ id: String, resumed: Bool) {
        guard let connection = connections[id], let membership = connection.membership,
              let session = sessions[membership.sessionID]
        else { return }
        let others = session.connectionIDs.filter { $0 != id }.compactMap { connections[$0]?.membership }
            .filter { !$0.hidden }.map(\.info)
        let streamInfos = session.streamIDs.compactMap { streams[$0]?.info }
        send(
            .connected(
                .init(
                    version: ProtocolVersion.current, sessionID: membership.sessionID, connection: membership.info,
                    role: membership.role, connections: others, streams: streamInfos, resumed: resumed,
                    resumeToken: membership.resumeToken, heartbeatInterval: configuration.heartbeatIntervalMs,
                    heartbeatTimeout: configuration.heartbeatTimeoutMs, resumeGrace: configuration.resumeGraceMs,
                    iceServers: iceServers(for: id))),
            to: id)
    }

    /// The configured ICE servers with TURN credentials for connection `id`, or nil when none are configured.
    private func iceServers(for id: String) -> [ICEServerInfo]? {
        guard !configuration.iceServers.isEmpty else { return nil }
        return TURNCredentials.issue(configuration.iceServers, with: turnCredentials, user: id,
                                     now: WallClock.seconds())
    }

    private func handleMemberRequest(
        _ message: ClientMessage, rid: Int?, id: String, membership: ConnectionRecord.Membership
    ) throws(ProtocolError) {
        let role = membership.role
        let sessionID = membership.sessionID
        switch message {
        case .connect, .resume, .disconnect, .ping:
            return  // handled by `receive`
        case let .publish(publish):
            guard role.mayPublish else { throw ProtocolError(.unableToPublish, "role \(role.rawValue) may not publish") }
            try Validation.streamName(publish.name)
            try Validation.videoDimensions(publish.videoDimensions)
            try Validation.frameRate(publish.frameRate)
            let info = StreamInfo(
                id: RandomID.object(), connectionID: id, name: publish.name, hasAudio: publish.hasAudio,
                hasVideo: publish.hasVideo, videoType: publish.videoType, videoDimensions: publish.videoDimensions,
                frameRate: publish.frameRate, creationTime: WallClock.milliseconds())
            // Routed: the publisher negotiates once, with the media router, on this upstream id (6.7).
            let upstreamID = routesStreams(in: sessionID) ? RandomID.object() : nil
            streams[info.id] = StreamRecord(info: info, sessionID: sessionID, upstreamID: upstreamID)
            sessions[sessionID]?.streamIDs.append(info.id)
            connections[id]?.streamIDs.append(info.id)
            metrics.streamPublished()
            logger.debug("stream published", metadata: logMetadata(id, ["stream_id": "\(info.id)"]))
            ack(rid, to: id, streamID: info.id, subscriberID: upstreamID)
            broadcast(.streamCreated(.init(stream: info)), in: sessionID)
            noteStreamPublished(in: sessionID)
        case let .unpublish(reference):
            _ = try ownedStream(reference.streamID, by: id, in: sessionID)
            ack(rid, to: id)
            removeStream(reference.streamID, reason: .unpublished)
        case let .updateStream(update):
            var info = try ownedStream(update.streamID, by: id, in: sessionID)
            try Validation.videoDimensions(update.videoDimensions)
            var changed: [StreamProperty] = []
            if let value = update.hasAudio, value != info.hasAudio { info.hasAudio = value; changed.append(.hasAudio) }
            if let value = update.hasVideo, value != info.hasVideo { info.hasVideo = value; changed.append(.hasVideo) }
            if let value = update.videoDimensions, value != info.videoDimensions {
                info.videoDimensions = value
                changed.append(.videoDimensions)
            }
            if let value = update.videoType, value != info.videoType { info.videoType = value; changed.append(.videoType) }
            ack(rid, to: id)
            if !changed.isEmpty {
                streams[info.id]?.info = info
                broadcast(.streamPropertyChanged(.init(stream: info, changed: changed)), in: sessionID)
            }
            if changed.contains(.hasAudio), info.hasAudio { moderateRoutedAudio(info.id, mute: false, from: id) }
        case let .subscribe(subscribe):
            guard role.maySubscribe else { throw ProtocolError(.unableToSubscribe, "role \(role.rawValue) may not subscribe") }
            let stream = try liveStream(subscribe.streamID, in: sessionID)
            let subscription = SubscriptionRecord(
                id: RandomID.object(), streamID: stream.id, subscriber: id, publisher: stream.connectionID,
                subscribeToAudio: subscribe.subscribeToAudio, subscribeToVideo: subscribe.subscribeToVideo)
            let routed = routing != nil && streams[stream.id]?.upstreamID != nil
            // Routed: the media router offers, not the publisher (6.7); queued before anything is recorded, so that
            // a refusal (1430) leaves nothing behind.
            if routed { try submitRoutedSubscribe(subscription, in: sessionID) }
            subscriptions[subscription.id] = subscription
            streams[stream.id]?.subscriberIDs.append(subscription.id)
            connections[id]?.subscriberIDs.append(subscription.id)
            metrics.subscribed()
            logger.debug("subscribed", metadata: logMetadata(
                id, ["stream_id": "\(stream.id)", "subscriber_id": "\(subscription.id)"]))
            ack(rid, to: id, streamID: stream.id, subscriberID: subscription.id)
            if routed { return }
            send(
                .subscribe(
                    .init(
                        streamID: stream.id, subscriberID: subscription.id, from: id,
                        subscribeToAudio: subscribe.subscribeToAudio, subscribeToVideo: subscribe.subscribeToVideo)),
                to: stream.connectionID)
        case let .unsubscribe(reference):
            guard let subscription = subscriptions[exactly: reference.subscriberID], subscription.subscriber == id else {
                throw ProtocolError(.subscriberNotFound, "no such subscription of this connection")
            }
            ack(rid, to: id)
            removeSubscription(subscription.id, notifyPublisher: true)
        case let .subscriberPreferences(preferences):
            guard let subscription = subscriptions[exactly: preferences.subscriberID], subscription.subscriber == id else {
                throw ProtocolError(.subscriberNotFound, "no such subscription of this connection")
            }
            try Validation.videoDimensions(preferences.preferredResolution)
            if let rate = preferences.preferredFrameRate, !(rate.isFinite && rate > 0 && rate <= 1_000) {
                throw ProtocolError(.invalidParameter, "preferredFrameRate must be a number in (0, 1000]")
            }
            try routeSubscriberPreferences(preferences, of: subscription)
            ack(rid, to: id)
        case let .negotiation(negotiation):
            if try routeNegotiation(negotiation, from: id) { return ack(rid, to: id) }
            guard let subscription = subscriptions[exactly: negotiation.subscriberID],
                  subscription.streamID.isSameBytes(as: negotiation.streamID),
                  subscription.subscriber == id || subscription.publisher == id
            else { throw ProtocolError(.subscriberNotFound, "no such subscription for this connection and stream") }
            try Validation.negotiationPayload(negotiation.payload)
            let target = subscription.subscriber == id ? subscription.publisher : subscription.subscriber
            ack(rid, to: id)
            send(
                .negotiation(
                    .init(
                        streamID: negotiation.streamID, subscriberID: negotiation.subscriberID, kind: negotiation.kind,
                        payload: negotiation.payload, from: id)),
                to: target)
        case let .signal(signal):
            guard role.maySignal else { throw ProtocolError(.unableToSignal, "role \(role.rawValue) may not signal") }
            try deliverSignal(in: sessionID, from: id, to: signal.to, type: signal.type, data: signal.data) {
                self.ack(rid, to: id)
            }
        case let .forceDisconnect(reference):
            guard role.mayModerate else { throw ProtocolError(.unableToForceDisconnect, "only a moderator may do this") }
            try forceDisconnect(reference.connectionID, in: sessionID) { self.ack(rid, to: id) }
        case let .forceUnpublish(reference):
            guard role.mayModerate else { throw ProtocolError(.unableToForceUnpublish, "only a moderator may do this") }
            try forceUnpublish(reference.streamID, in: sessionID) { self.ack(rid, to: id) }
        case let .forceMute(reference):
            guard role.mayModerate else { throw ProtocolError(.unableToForceMute, "only a moderator may do this") }
            try forceMute(reference.streamID, in: sessionID) { self.ack(rid, to: id) }
        }
    }

    private func ownedStream(_ streamID: String, by id: String, in sessionID: String) throws(ProtocolError) -> StreamInfo {
        let info = try liveStream(streamID, in: sessionID)
        guard info.connectionID == id else { throw ProtocolError(.illegalState, "stream belongs to another connection") }
        return info
    }
}
