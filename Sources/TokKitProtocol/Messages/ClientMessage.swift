/// A message a client sends to the server over the signaling WebSocket (Docs/Protocol.md, "Client messages").
///
/// On the wire each is one JSON object with a `type` field naming the case and the payload's fields beside it
/// (flat, no nesting). Wrapped in a ``ClientRequest`` to carry the optional request id. Value type, `Sendable`.
public enum ClientMessage: Hashable, Sendable {
    /// First message on a new socket: join a session with a token.
    case connect(Connect)
    /// First message on a new socket: take back a connection whose socket was lost.
    case resume(Resume)
    /// Leave the session cleanly; the server destroys the connection and closes the socket.
    case disconnect
    /// Heartbeat; answered with `pong`.
    case ping(Ping)
    /// Announce a new stream from this connection.
    case publish(Publish)
    /// End one of this connection's streams.
    case unpublish(StreamReference)
    /// Change properties of one of this connection's streams.
    case updateStream(UpdateStream)
    /// Ask to receive a stream; the server forwards the request to the publisher's connection.
    case subscribe(Subscribe)
    /// Stop receiving; forwarded to the publisher's connection.
    case unsubscribe(SubscriberReference)
    /// The video a subscription would like (routed streams: the simulcast layer the media router forwards).
    case subscriberPreferences(SubscriberPreferences)
    /// Relay one opaque WebRTC negotiation message to the other end of a subscription.
    case negotiation(Negotiation)
    /// Send a signal to the whole session or to one connection.
    case signal(Signal)
    /// Moderator: remove a connection from the session.
    case forceDisconnect(ConnectionReference)
    /// Moderator: end a stream.
    case forceUnpublish(StreamReference)
    /// Moderator: turn a stream's audio off.
    case forceMute(StreamReference)

    /// The wire name of the message (`type` field).
    public var type: String {
        switch self {
        case .connect: "connect"
        case .resume: "resume"
        case .disconnect: "disconnect"
        case .ping: "ping"
        case .publish: "publish"
        case .unpublish: "unpublish"
        case .updateStream: "updateStream"
        case .subscribe: "subscribe"
        case .unsubscribe: "unsubscribe"
        case .subscriberPreferences: "subscriberPreferences"
        case .negotiation: "negotiation"
        case .signal: "signal"
        case .forceDisconnect: "forceDisconnect"
        case .forceUnpublish: "forceUnpublish"
        case .forceMute: "forceMute"
        }
    }
}

extension ClientMessage {
    /// `connect`: the protocol version, and the credentials OpenTok's `Session(apiKey:sessionId:)` +
    /// `connect(withToken:)` take.
    public struct Connect: Codable, Hashable, Sendable {
        public var version: Int
        public var apiKey: String
        public var sessionID: String
        public var token: String
        public init(version: Int = ProtocolVersion.current, apiKey: String, sessionID: String, token: String) {
            self.version = version
            self.apiKey = apiKey
            self.sessionID = sessionID
            self.token = token
        }

        enum CodingKeys: String, CodingKey {
            case version, apiKey
            case sessionID = "sessionId"
            case token
        }
    }

    /// `resume`: the connection id and the latest resume token the server gave in `connected`.
    public struct Resume: Codable, Hashable, Sendable {
        public var version: Int
        public var connectionID: String
        public var resumeToken: String
        public init(version: Int = ProtocolVersion.current, connectionID: String, resumeToken: String) {
            self.version = version
            self.connectionID = connectionID
            self.resumeToken = resumeToken
        }

        enum CodingKeys: String, CodingKey {
            case version
            case connectionID = "connectionId"
            case resumeToken
        }
    }

    /// `ping`: an optional sequence number echoed by `pong`.
    public struct Ping: Codable, Hashable, Sendable {
        public var seq: Int?
        public init(seq: Int? = nil) { self.seq = seq }
    }

    /// `publish`: the new stream's description. The server assigns its id and creation time.
    ///
    /// Every field is optional on the wire; an absent (or null) one takes the default Docs/Protocol.md states,
    /// the same as this initializer's: `name` "", `hasAudio` true, `hasVideo` true, `videoType` camera, no
    /// `videoDimensions`, no `frameRate` (the server then assumes ``ProtocolLimits/assumedFrameRate``).
    public struct Publish: Codable, Hashable, Sendable {
        public var name: String
        public var hasAudio: Bool
        public var hasVideo: Bool
        public var videoType: VideoType
        public var videoDimensions: VideoDimensions?
        /// The video's frame rate in frames per second (``Validation/frameRate(_:)``); additive, nil when unknown.
        public var frameRate: Double?
        public init(
            name: String = "", hasAudio: Bool = true, hasVideo: Bool = true, videoType: VideoType = .camera,
            videoDimensions: VideoDimensions? = nil, frameRate: Double? = nil
        ) {
            self.name = name
            self.hasAudio = hasAudio
            self.hasVideo = hasVideo
            self.videoType = videoType
            self.videoDimensions = videoDimensions
            self.frameRate = frameRate
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let defaults = Publish()
            name = try container.decodeIfPresent(String.self, forKey: .name) ?? defaults.name
            hasAudio = try container.decodeIfPresent(Bool.self, forKey: .hasAudio) ?? defaults.hasAudio
            hasVideo = try container.decodeIfPresent(Bool.self, forKey: .hasVideo) ?? defaults.hasVideo
            videoType = try container.decodeIfPresent(VideoType.self, forKey: .videoType) ?? defaults.videoType
            videoDimensions = try container.decodeIfPresent(VideoDimensions.self, forKey: .videoDimensions)
            frameRate = try container.decodeIfPresent(Double.self, forKey: .frameRate)
        }

        enum CodingKeys: String, CodingKey {
            case name, hasAudio, hasVideo, videoType, videoDimensions, frameRate
        }
    }

    /// `updateStream`: the stream and only the properties that change (absent fields keep their value).
    public struct UpdateStream: Codable, Hashable, Sendable {
        public var streamID: String
        public var hasAudio: Bool?
        public var hasVideo: Bool?
        public var videoType: VideoType?
        public var videoDimensions: VideoDimensions?
        public init(
            streamID: String, hasAudio: Bool? = nil, hasVideo: Bool? = nil, videoType: VideoType? = nil,
            videoDimensions: VideoDimensions? = nil
        ) {
            self.streamID = streamID
            self.hasAudio = hasAudio
            self.hasVideo = hasVideo
            self.videoType = videoType
            self.videoDimensions = videoDimensions
        }

        enum CodingKeys: String, CodingKey {
            case streamID = "streamId"
            case hasAudio, hasVideo, videoType, videoDimensions
        }
    }

    /// `subscribe`: the stream to receive, and whether audio / video are wanted (default both).
    public struct Subscribe: Codable, Hashable, Sendable {
        public var streamID: String
        public var subscribeToAudio: Bool?
        public var subscribeToVideo: Bool?
        public init(streamID: String, subscribeToAudio: Bool? = nil, subscribeToVideo: Bool? = nil) {
            self.streamID = streamID
            self.subscribeToAudio = subscribeToAudio
            self.subscribeToVideo = subscribeToVideo
        }

        enum CodingKeys: String, CodingKey {
            case streamID = "streamId"
            case subscribeToAudio, subscribeToVideo
        }
    }

    /// `subscriberPreferences`: the size and frame rate a subscription would like (the SDK's
    /// `OTSubscriberKit.preferredResolution` / `preferredFrameRate`); null clears one. Both fields must be present
    /// (null allowed), so a message always states the whole preference.
    public struct SubscriberPreferences: Codable, Hashable, Sendable {
        public var subscriberID: String
        public var preferredResolution: VideoDimensions?
        public var preferredFrameRate: Double?
        public init(subscriberID: String, preferredResolution: VideoDimensions? = nil, preferredFrameRate: Double? = nil) {
            self.subscriberID = subscriberID
            self.preferredResolution = preferredResolution
            self.preferredFrameRate = preferredFrameRate
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            subscriberID = try container.decode(String.self, forKey: .subscriberID)
            for key in [CodingKeys.preferredResolution, .preferredFrameRate] where !container.contains(key) {
                throw DecodingError.keyNotFound(key, .init(codingPath: decoder.codingPath,
                                                           debugDescription: "\(key.stringValue) is required (null clears it)"))
            }
            preferredResolution = try container.decodeIfPresent(VideoDimensions.self, forKey: .preferredResolution)
            preferredFrameRate = try container.decodeIfPresent(Double.self, forKey: .preferredFrameRate)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(subscriberID, forKey: .subscriberID)
            try container.encode(preferredResolution, forKey: .preferredResolution)
            try container.encode(preferredFrameRate, forKey: .preferredFrameRate)
        }

        enum CodingKeys: String, CodingKey {
            case subscriberID = "subscriberId"
            case preferredResolution, preferredFrameRate
        }
    }

    /// `negotiation`: addressed by stream id + subscriber id; the server delivers it to the other end.
    public struct Negotiation: Codable, Hashable, Sendable {
        public var streamID: String
        public var subscriberID: String
        public var kind: NegotiationKind
        public var payload: String
        public init(streamID: String, subscriberID: String, kind: NegotiationKind, payload: String) {
            self.streamID = streamID
            self.subscriberID = subscriberID
            self.kind = kind
            self.payload = payload
        }

        enum CodingKeys: String, CodingKey {
            case streamID = "streamId"
            case subscriberID = "subscriberId"
            case kind, payload
        }
    }

    /// `signal`: type (may be empty), data, and an optional target connection (absent: everyone, sender included).
    /// Any `from` field a client adds is ignored: the server stamps the true sender. `signalType` and `data` are
    /// optional on the wire; absent (or null) they are "" (Docs/Protocol.md, 6.3).
    public struct Signal: Codable, Hashable, Sendable {
        public var type: String
        public var data: String
        public var to: String?
        public init(type: String = "", data: String = "", to: String? = nil) {
            self.type = type
            self.data = data
            self.to = to
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            type = try container.decodeIfPresent(String.self, forKey: .type) ?? ""
            data = try container.decodeIfPresent(String.self, forKey: .data) ?? ""
            to = try container.decodeIfPresent(String.self, forKey: .to)
        }

        enum CodingKeys: String, CodingKey {
            case type = "signalType"
            case data
            case to
        }
    }
}

/// `{ "streamId": … }`: names one stream.
public struct StreamReference: Codable, Hashable, Sendable {
    public var streamID: String
    public init(streamID: String) { self.streamID = streamID }
    enum CodingKeys: String, CodingKey { case streamID = "streamId" }
}

/// `{ "subscriberId": … }`: names one subscription.
public struct SubscriberReference: Codable, Hashable, Sendable {
    public var subscriberID: String
    public init(subscriberID: String) { self.subscriberID = subscriberID }
    enum CodingKeys: String, CodingKey { case subscriberID = "subscriberId" }
}

/// `{ "connectionId": … }`: names one connection.
public struct ConnectionReference: Codable, Hashable, Sendable {
    public var connectionID: String
    public init(connectionID: String) { self.connectionID = connectionID }
    enum CodingKeys: String, CodingKey { case connectionID = "connectionId" }
}
