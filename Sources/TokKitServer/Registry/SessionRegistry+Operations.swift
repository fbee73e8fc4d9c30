import TokKitProtocol

/// Operations shared by the WebSocket and REST paths (role checks are the caller's), and session management.
/// Each validates first and throws a ``ProtocolError`` before changing anything; `accepted` runs after validation
/// and before the effects, so an `ack` always precedes the events it causes.
extension SessionRegistry {
    // MARK: Sessions

    /// Creates a session; 1430 once the server holds ``ServerConfiguration/maxSessions``.
    func createSession(mediaMode: MediaMode, archiveMode: ArchiveMode, now: ContinuousClock.Instant = .now)
        throws(ProtocolError) -> SessionDescription
    {
        guard !(archiveMode == .always && mediaMode == .relayed) else {
            throw ProtocolError(.invalidParameter, "archiveMode always requires mediaMode routed")
        }
        guard sessions.count < configuration.maxSessions else {
            throw ProtocolError(.limitReached, "too many sessions")
        }
        let description = SessionDescription(
            sessionId: RandomID.session(), apiKey: authority.apiKey, mediaMode: mediaMode, archiveMode: archiveMode,
            createdAt: WallClock.milliseconds())
        sessions[description.sessionId] = SessionRecord(description: description, emptySince: now)
        metrics.sessionCreated()
        return description
    }

    /// The session of a named room (tutorial web service), created relayed/manual on first use.
    func room(_ name: String) throws(ProtocolError) -> SessionDescription {
        let allowed = name.utf8.count <= 128 && !name.isEmpty && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"),
                 UInt8(ascii: "."):
                true
            default: false
            }
        }
        guard allowed else { throw ProtocolError(.invalidParameter, "room name must be 1-128 of A-Z a-z 0-9 - _ ~ .") }
        if let id = rooms[name], let session = sessions[id] { return session.description }
        let description = try createSession(mediaMode: .relayed, archiveMode: .manual)
        rooms[name] = description.sessionId
        sessions[description.sessionId]?.room = name
        return description
    }

    /// A session created through quick start (``room(_:)``): the only ones the development route
    /// `GET /credentials/{id}` hands tokens for. 1005 for any other, as for an unknown one.
    func quickStartSession(_ sessionId: String) throws(ProtocolError) -> SessionDescription {
        guard let session = sessions[exactly: sessionId], session.room != nil else {
            throw ProtocolError(.invalidSessionId, "unknown session id")
        }
        return session.description
    }

    func session(_ sessionId: String) throws(ProtocolError) -> SessionDescription {
        guard let session = sessions[exactly: sessionId] else { throw ProtocolError(.invalidSessionId, "unknown session id") }
        return session.description
    }

    func streamList(_ sessionId: String) throws(ProtocolError) -> [StreamInfo] {
        guard let session = sessions[exactly: sessionId] else { throw ProtocolError(.invalidSessionId, "unknown session id") }
        return session.streamIds.compactMap { streams[$0]?.info }
    }

    /// Ids of the session's member connections in join order (connected or awaiting resume).
    func connectionIds(in sessionId: String) -> [String] {
        sessions[sessionId]?.connectionIds ?? []
    }

    // MARK: Shared operations

    func liveStream(_ streamId: String, in sessionId: String) throws(ProtocolError) -> StreamInfo {
        guard let stream = streams[exactly: streamId], stream.sessionId.isSameBytes(as: sessionId) else {
            throw ProtocolError(.streamNotFound, "no such stream in this session")
        }
        return stream.info
    }

    private func member(_ connectionId: String, in sessionId: String) throws(ProtocolError) {
        guard let connection = connections[exactly: connectionId],
              connection.membership?.sessionId.isSameBytes(as: sessionId) == true
        else {
            throw ProtocolError(.invalidParameter, "no such connection in this session")
        }
    }

    /// Delivers a signal (`from` nil for REST) to one member or to every member, after validating type, data and
    /// target.
    func deliverSignal(
        in sessionId: String, from: String?, to target: String?, type: String, data: String,
        accepted: () -> Void = {}
    ) throws(ProtocolError) {
        try Validation.signalType(type)
        try Validation.signalData(data)
        if let target { try member(target, in: sessionId) }
        accepted()
        let message = ServerMessage.signal(.init(type: type, data: data, from: from, to: target))
        let deliveries: Int
        if let target {
            deliveries = send(message, to: target) ? 1 : 0
        } else {
            deliveries = broadcast(message, in: sessionId)
        }
        metrics.signal(via: from == nil ? .rest : .websocket, deliveries: deliveries)
    }

    func forceDisconnect(_ connectionId: String, in sessionId: String, accepted: () -> Void = {}) throws(ProtocolError) {
        try member(connectionId, in: sessionId)
        accepted()
        destroy(connectionId, reason: .forceDisconnected)
    }

    func forceUnpublish(_ streamId: String, in sessionId: String, accepted: () -> Void = {}) throws(ProtocolError) {
        _ = try liveStream(streamId, in: sessionId)
        accepted()
        removeStream(streamId, reason: .forceUnpublished)
    }

    func forceMute(_ streamId: String, in sessionId: String, accepted: () -> Void = {}) throws(ProtocolError) {
        var info = try liveStream(streamId, in: sessionId)
        accepted()
        send(.muteForced(.init(streamId: streamId)), to: info.connectionId)
        guard info.hasAudio else { return }
        info.hasAudio = false
        streams[streamId]?.info = info
        broadcast(.streamPropertyChanged(.init(stream: info, changed: [.hasAudio], forced: true)), in: sessionId)
    }
}
