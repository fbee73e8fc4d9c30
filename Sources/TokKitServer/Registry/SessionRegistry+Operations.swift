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
        guard sessions.count < configuration.maxSessions else {
            throw ProtocolError(.limitReached, "too many sessions")
        }
        let description = SessionDescription(
            sessionID: RandomID.session(), apiKey: authority.apiKey, mediaMode: mediaMode, archiveMode: archiveMode,
            createdAt: WallClock.milliseconds())
        sessions[description.sessionID] = SessionRecord(description: description, emptySince: now)
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
        rooms[name] = description.sessionID
        sessions[description.sessionID]?.room = name
        return description
    }

    /// A session created through quick start (``room(_:)``): the only ones the development route
    /// `GET /credentials/{id}` hands tokens for. 1005 for any other, as for an unknown one.
    func quickStartSession(_ sessionID: String) throws(ProtocolError) -> SessionDescription {
        guard let session = sessions[exactly: sessionID], session.room != nil else {
            throw ProtocolError(.invalidSessionID, "unknown session id")
        }
        return session.description
    }

    func session(_ sessionID: String) throws(ProtocolError) -> SessionDescription {
        guard let session = sessions[exactly: sessionID] else { throw ProtocolError(.invalidSessionID, "unknown session id") }
        return session.description
    }

    func streamList(_ sessionID: String) throws(ProtocolError) -> [StreamInfo] {
        guard let session = sessions[exactly: sessionID] else { throw ProtocolError(.invalidSessionID, "unknown session id") }
        return session.streamIDs.compactMap { streams[$0]?.info }
    }

    /// Ids of the session's member connections in join order (connected or awaiting resume).
    func connectionIDs(in sessionID: String) -> [String] {
        sessions[sessionID]?.connectionIDs ?? []
    }

    // MARK: Shared operations

    func liveStream(_ streamID: String, in sessionID: String) throws(ProtocolError) -> StreamInfo {
        guard let stream = streams[exactly: streamID], stream.sessionID.isSameBytes(as: sessionID) else {
            throw ProtocolError(.streamNotFound, "no such stream in this session")
        }
        return stream.info
    }

    private func member(_ connectionID: String, in sessionID: String) throws(ProtocolError) {
        guard let connection = connections[exactly: connectionID],
              connection.membership?.sessionID.isSameBytes(as: sessionID) == true
        else {
            throw ProtocolError(.invalidParameter, "no such connection in this session")
        }
    }

    /// Delivers a signal (`from` nil for REST) to one member or to every member, after validating type, data and
    /// target.
    func deliverSignal(
        in sessionID: String, from: String?, to target: String?, type: String, data: String,
        accepted: () -> Void = {}
    ) throws(ProtocolError) {
        try Validation.signalType(type)
        try Validation.signalData(data)
        if let target { try member(target, in: sessionID) }
        accepted()
        let message = ServerMessage.signal(.init(type: type, data: data, from: from, to: target))
        let deliveries: Int
        if let target {
            deliveries = send(message, to: target) ? 1 : 0
        } else {
            deliveries = broadcast(message, in: sessionID)
        }
        metrics.signal(via: from == nil ? .rest : .websocket, deliveries: deliveries)
    }

    func forceDisconnect(_ connectionID: String, in sessionID: String, accepted: () -> Void = {}) throws(ProtocolError) {
        try member(connectionID, in: sessionID)
        accepted()
        destroy(connectionID, reason: .forceDisconnected)
    }

    func forceUnpublish(_ streamID: String, in sessionID: String, accepted: () -> Void = {}) throws(ProtocolError) {
        _ = try liveStream(streamID, in: sessionID)
        accepted()
        removeStream(streamID, reason: .forceUnpublished)
    }

    func forceMute(_ streamID: String, in sessionID: String, accepted: () -> Void = {}) throws(ProtocolError) {
        var info = try liveStream(streamID, in: sessionID)
        accepted()
        send(.muteForced(.init(streamID: streamID)), to: info.connectionID)
        moderateRoutedAudio(streamID, mute: true)
        guard info.hasAudio else { return }
        info.hasAudio = false
        streams[streamID]?.info = info
        broadcast(.streamPropertyChanged(.init(stream: info, changed: [.hasAudio], forced: true)), in: sessionID)
    }
}
