/// A message the server sends to a client over the signaling WebSocket (Docs/Protocol.md, "Server messages").
///
/// On the wire each is one flat JSON object with a `type` field naming the case. Clients must ignore types they do
/// not know (``WireCodec/decodeServer(_:)`` reports them as ``WireCodec/ServerDecoding/unknownType(_:)``).
/// Value type, `Sendable`.
public enum ServerMessage: Hashable, Sendable {
    /// Reply to `connect` / `resume`: the connection is established; a snapshot of the session.
    case connected(Connected)
    /// Another connection joined.
    case connectionCreated(ConnectionEvent)
    /// A connection left (possibly this one: then the socket closes next).
    case connectionDestroyed(ConnectionDestroyed)
    /// A stream started (including this connection's own, after the `ack` of its `publish`).
    case streamCreated(StreamEvent)
    /// A stream ended.
    case streamDestroyed(StreamDestroyed)
    /// Properties of a stream changed; `stream` holds the new values.
    case streamPropertyChanged(StreamPropertyChanged)
    /// A signal, `from` stamped by the server (absent when sent through the REST API).
    case signal(Signal)
    /// To a publisher: a connection wants to receive one of its streams.
    case subscribe(SubscriptionEvent)
    /// To a publisher: a subscription ended (unsubscribe, or the subscriber left).
    case unsubscribe(SubscriptionEvent)
    /// A relayed WebRTC negotiation message from the other end of a subscription.
    case negotiation(Negotiation)
    /// To a publisher: a moderator turned this stream's audio off; stop sending audio.
    case muteForced(StreamReference)
    /// To a routed publisher (Protocol.md 6.7 step 5): the media router lost the upstream's media path; offer again
    /// on it now, if the peer connection that made the offer named by `iceUfrag` is still the current one.
    case mediaRestart(MediaRestart)
    /// The session started being archived.
    case archiveStarted(ArchiveStarted)
    /// The session stopped being archived.
    case archiveStopped(ArchiveStopped)
    /// A request with a `rid` succeeded.
    case ack(Ack)
    /// A request failed, or a message could not be read.
    case error(ErrorReply)
    /// Reply to `ping`.
    case pong(Pong)

    /// The wire name of the message (`type` field).
    public var type: String {
        switch self {
        case .connected: "connected"
        case .connectionCreated: "connectionCreated"
        case .connectionDestroyed: "connectionDestroyed"
        case .streamCreated: "streamCreated"
        case .streamDestroyed: "streamDestroyed"
        case .streamPropertyChanged: "streamPropertyChanged"
        case .signal: "signal"
        case .subscribe: "subscribe"
        case .unsubscribe: "unsubscribe"
        case .negotiation: "negotiation"
        case .muteForced: "muteForced"
        case .mediaRestart: "mediaRestart"
        case .archiveStarted: "archiveStarted"
        case .archiveStopped: "archiveStopped"
        case .ack: "ack"
        case .error: "error"
        case .pong: "pong"
        }
    }
}

extension ServerMessage {
    /// `connected`: who this connection is and what the session holds right now.
    ///
    /// `connections` are the OTHER connections; `streams` are all live streams (this connection's own too, which
    /// matters after a resume). Durations are milliseconds. Send a `ping` at least every `heartbeatInterval`; the
    /// server drops a socket silent for `heartbeatTimeout`. A lost socket may `resume` within `resumeGrace` with
    /// `resumeToken` (a new one is issued on every `connected`). `iceServers` (absent when the server has none)
    /// are the STUN and TURN servers media connections should use, with TURN credentials valid for a limited
    /// time (a resume brings fresh ones).
    public struct Connected: Codable, Hashable, Sendable {
        public var version: Int
        public var sessionID: String
        public var connection: ConnectionInfo
        public var role: Role
        public var connections: [ConnectionInfo]
        public var streams: [StreamInfo]
        public var resumed: Bool
        public var resumeToken: String
        public var heartbeatInterval: Int
        public var heartbeatTimeout: Int
        public var resumeGrace: Int
        public var iceServers: [ICEServerInfo]?
        public init(
            version: Int, sessionID: String, connection: ConnectionInfo, role: Role, connections: [ConnectionInfo],
            streams: [StreamInfo], resumed: Bool, resumeToken: String, heartbeatInterval: Int,
            heartbeatTimeout: Int, resumeGrace: Int, iceServers: [ICEServerInfo]? = nil
        ) {
            self.version = version
            self.sessionID = sessionID
            self.connection = connection
            self.role = role
            self.connections = connections
            self.streams = streams
            self.resumed = resumed
            self.resumeToken = resumeToken
            self.heartbeatInterval = heartbeatInterval
            self.heartbeatTimeout = heartbeatTimeout
            self.resumeGrace = resumeGrace
            self.iceServers = iceServers
        }

        enum CodingKeys: String, CodingKey {
            case version
            case sessionID = "sessionId"
            case connection
            case role
            case connections
            case streams
            case resumed
            case resumeToken
            case heartbeatInterval
            case heartbeatTimeout
            case resumeGrace
            case iceServers
        }
    }

    /// `connectionCreated`.
    public struct ConnectionEvent: Codable, Hashable, Sendable {
        public var connection: ConnectionInfo
        public init(connection: ConnectionInfo) { self.connection = connection }
    }

    /// `connectionDestroyed`.
    public struct ConnectionDestroyed: Codable, Hashable, Sendable {
        public var connection: ConnectionInfo
        public var reason: DisconnectReason
        public init(connection: ConnectionInfo, reason: DisconnectReason) {
            self.connection = connection
            self.reason = reason
        }
    }

    /// `streamCreated`.
    public struct StreamEvent: Codable, Hashable, Sendable {
        public var stream: StreamInfo
        public init(stream: StreamInfo) { self.stream = stream }
    }

    /// `streamDestroyed`.
    public struct StreamDestroyed: Codable, Hashable, Sendable {
        public var stream: StreamInfo
        public var reason: StreamDestroyedReason
        public init(stream: StreamInfo, reason: StreamDestroyedReason) {
            self.stream = stream
            self.reason = reason
        }
    }

    /// `streamPropertyChanged`: `changed` lists what differs from the previous state; `forced` is true when a
    /// moderator caused it (force mute).
    public struct StreamPropertyChanged: Codable, Hashable, Sendable {
        public var stream: StreamInfo
        public var changed: [StreamProperty]
        public var forced: Bool
        public init(stream: StreamInfo, changed: [StreamProperty], forced: Bool = false) {
            self.stream = stream
            self.changed = changed
            self.forced = forced
        }
    }

    /// `signal`: `from` is the sending connection's id as the server knows it (absent for REST signals); `to` is the
    /// target connection when the signal was addressed to one.
    public struct Signal: Codable, Hashable, Sendable {
        public var type: String
        public var data: String
        public var from: String?
        public var to: String?
        public init(type: String, data: String, from: String?, to: String?) {
            self.type = type
            self.data = data
            self.from = from
            self.to = to
        }

        enum CodingKeys: String, CodingKey {
            case type = "signalType"
            case data
            case from
            case to
        }
    }

    /// `subscribe` / `unsubscribe` (to a publisher): `from` is the subscriber's connection id.
    public struct SubscriptionEvent: Codable, Hashable, Sendable {
        public var streamID: String
        public var subscriberID: String
        public var from: String
        public var subscribeToAudio: Bool?
        public var subscribeToVideo: Bool?
        public init(
            streamID: String, subscriberID: String, from: String, subscribeToAudio: Bool? = nil,
            subscribeToVideo: Bool? = nil
        ) {
            self.streamID = streamID
            self.subscriberID = subscriberID
            self.from = from
            self.subscribeToAudio = subscribeToAudio
            self.subscribeToVideo = subscribeToVideo
        }

        enum CodingKeys: String, CodingKey {
            case streamID = "streamId"
            case subscriberID = "subscriberId"
            case from
            case subscribeToAudio
            case subscribeToVideo
        }
    }

    /// `negotiation`: `from` is the sending connection's id (stamped by the server).
    public struct Negotiation: Codable, Hashable, Sendable {
        public var streamID: String
        public var subscriberID: String
        public var kind: NegotiationKind
        public var payload: String
        public var from: String
        public init(streamID: String, subscriberID: String, kind: NegotiationKind, payload: String, from: String) {
            self.streamID = streamID
            self.subscriberID = subscriberID
            self.kind = kind
            self.payload = payload
            self.from = from
        }

        enum CodingKeys: String, CodingKey {
            case streamID = "streamId"
            case subscriberID = "subscriberId"
            case kind
            case payload
            case from
        }
    }

    /// `mediaRestart` (routed sessions, Protocol.md 6.7 step 5): the media router instance carrying the upstream
    /// `subscriberId` of `streamId` was lost. The publisher offers again on that upstream at once (as its own media
    /// watchdog would after 2.5 s of silence), but only if its current peer connection is the one whose offer
    /// carried `iceUfrag` (`a=ice-ufrag`): a message about a peer already replaced is stale and ignored, so a
    /// duplicate restarts nothing twice. `reason` is for logs.
    public struct MediaRestart: Codable, Hashable, Sendable {
        public var streamID: String
        public var subscriberID: String
        public var iceUfrag: String
        public var reason: String
        public init(streamID: String, subscriberID: String, iceUfrag: String, reason: String) {
            self.streamID = streamID
            self.subscriberID = subscriberID
            self.iceUfrag = iceUfrag
            self.reason = reason
        }

        enum CodingKeys: String, CodingKey {
            case streamID = "streamId"
            case subscriberID = "subscriberId"
            case iceUfrag
            case reason
        }
    }

    /// `archiveStarted`.
    public struct ArchiveStarted: Codable, Hashable, Sendable {
        public var archiveID: String
        public var name: String
        public init(archiveID: String, name: String) {
            self.archiveID = archiveID
            self.name = name
        }

        enum CodingKeys: String, CodingKey {
            case archiveID = "archiveId"
            case name
        }
    }

    /// `archiveStopped`.
    public struct ArchiveStopped: Codable, Hashable, Sendable {
        public var archiveID: String
        public init(archiveID: String) { self.archiveID = archiveID }

        enum CodingKeys: String, CodingKey {
            case archiveID = "archiveId"
        }
    }

    /// `ack`: the request `rid` succeeded. `streamID` answers `publish`; `subscriberID` (and `streamID`) answer
    /// `subscribe`.
    public struct Ack: Codable, Hashable, Sendable {
        public var rid: Int
        public var streamID: String?
        public var subscriberID: String?
        public init(rid: Int, streamID: String? = nil, subscriberID: String? = nil) {
            self.rid = rid
            self.streamID = streamID
            self.subscriberID = subscriberID
        }

        enum CodingKeys: String, CodingKey {
            case rid
            case streamID = "streamId"
            case subscriberID = "subscriberId"
        }
    }

    /// `error`: `rid` is the failed request's id when it had one (and could be read).
    /// `subscriberId` (additive, routed sessions only) names the negotiation a failure without `rid` concerns: a
    /// subscription, or a routed publisher's upstream (Docs/Protocol.md 6.7).
    public struct ErrorReply: Codable, Hashable, Sendable {
        public var rid: Int?
        public var code: ErrorCode
        public var message: String
        public var subscriberID: String?
        public init(rid: Int?, code: ErrorCode, message: String, subscriberID: String? = nil) {
            self.rid = rid
            self.code = code
            self.message = message
            self.subscriberID = subscriberID
        }
        public init(rid: Int?, _ error: ProtocolError, subscriberID: String? = nil) {
            self.init(rid: rid, code: error.code, message: error.message, subscriberID: subscriberID)
        }

        enum CodingKeys: String, CodingKey {
            case rid, code, message
            case subscriberID = "subscriberId"
        }
    }

    /// `pong`: echoes the `ping`'s `seq`.
    public struct Pong: Codable, Hashable, Sendable {
        public var seq: Int?
        public init(seq: Int? = nil) { self.seq = seq }
    }
}

extension ServerMessage: Codable {
    public init(from decoder: any Decoder) throws {
        let envelope = try decoder.container(keyedBy: EnvelopeKey.self)
        let type = try envelope.decode(String.self, forKey: .type)
        switch type {
        case "connected": self = .connected(try .init(from: decoder))
        case "connectionCreated": self = .connectionCreated(try .init(from: decoder))
        case "connectionDestroyed": self = .connectionDestroyed(try .init(from: decoder))
        case "streamCreated": self = .streamCreated(try .init(from: decoder))
        case "streamDestroyed": self = .streamDestroyed(try .init(from: decoder))
        case "streamPropertyChanged": self = .streamPropertyChanged(try .init(from: decoder))
        case "signal": self = .signal(try .init(from: decoder))
        case "subscribe": self = .subscribe(try .init(from: decoder))
        case "unsubscribe": self = .unsubscribe(try .init(from: decoder))
        case "negotiation": self = .negotiation(try .init(from: decoder))
        case "muteForced": self = .muteForced(try .init(from: decoder))
        case "mediaRestart": self = .mediaRestart(try .init(from: decoder))
        case "archiveStarted": self = .archiveStarted(try .init(from: decoder))
        case "archiveStopped": self = .archiveStopped(try .init(from: decoder))
        case "ack": self = .ack(try .init(from: decoder))
        case "error": self = .error(try .init(from: decoder))
        case "pong": self = .pong(try .init(from: decoder))
        default: throw UnknownMessageType(type: type)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var envelope = encoder.container(keyedBy: EnvelopeKey.self)
        try envelope.encode(type, forKey: .type)
        switch self {
        case let .connected(m): try m.encode(to: encoder)
        case let .connectionCreated(m): try m.encode(to: encoder)
        case let .connectionDestroyed(m): try m.encode(to: encoder)
        case let .streamCreated(m): try m.encode(to: encoder)
        case let .streamDestroyed(m): try m.encode(to: encoder)
        case let .streamPropertyChanged(m): try m.encode(to: encoder)
        case let .signal(m): try m.encode(to: encoder)
        case let .subscribe(m): try m.encode(to: encoder)
        case let .unsubscribe(m): try m.encode(to: encoder)
        case let .negotiation(m): try m.encode(to: encoder)
        case let .muteForced(m): try m.encode(to: encoder)
        case let .mediaRestart(m): try m.encode(to: encoder)
        case let .archiveStarted(m): try m.encode(to: encoder)
        case let .archiveStopped(m): try m.encode(to: encoder)
        case let .ack(m): try m.encode(to: encoder)
        case let .error(m): try m.encode(to: encoder)
        case let .pong(m): try m.encode(to: encoder)
        }
    }
}

/// Thrown while decoding a ``ServerMessage`` whose `type` this build does not know (clients ignore such messages).
public struct UnknownMessageType: Error, Hashable, Sendable {
    public var type: String
}
