/// Janus's VideoRoom plugin (an SFU): rooms, publisher handles (one upload per published stream) and subscriber
/// handles (one PeerConnection per subscription, whose offer Janus makes), as typed calls over ``JanusHandle``.
public enum VideoRoom {
    /// The plugin package.
    public static let plugin = "janus.plugin.videoroom"
}

/// How a room is created (`create`). The defaults suit TokKit's routed sessions: VP8 and Opus only, transport-wide
/// congestion control negotiated, and a per-publisher bitrate cap high enough for three simulcast layers.
public struct VideoRoomSettings: Sendable, Hashable {
    /// Most publishers at once (Janus refuses more with ``VideoRoomErrorCode/publishersFull``).
    public var publishers: Int
    /// A description, for Janus's logs and `list`.
    public var description: String?
    /// The bitrate cap Janus asks publishers for with REMB (bits per second, all layers together); 0 for none.
    /// Simulcast needs room for every layer: 2.5 Mbit/s covers 1280x720 + 640x360 + 320x180 VP8.
    public var bitrate: Int
    /// Whether ``bitrate`` is a hard limit on what publishers' own estimates may ask for.
    public var bitrateCap: Bool
    /// Seconds between the keyframe requests Janus sends publishers on its own (0: only when a subscriber needs
    /// one, as after a layer switch).
    public var keyframeInterval: Int
    /// Video codecs publishers may use. VP8 (Janus does simulcast for VP8 and H.264 only).
    public var videoCodec: String
    /// Audio codecs publishers may use.
    public var audioCodec: String
    /// Whether the transport-wide CC extension is negotiated with publishers (their send-side bandwidth estimate,
    /// which lets a simulcast sender turn its upper layers on, depends on it).
    public var transportWideCC: Bool
    /// Whether the ssrc-audio-level extension is negotiated.
    public var audioLevel: Bool
    /// A secret needed to destroy or edit the room.
    public var secret: String?

    /// Settings; the defaults suit routed sessions (see the type's documentation).
    public init(publishers: Int = 16, description: String? = nil, bitrate: Int = 2_500_000,
                bitrateCap: Bool = false, keyframeInterval: Int = 10, videoCodec: String = "vp8",
                audioCodec: String = "opus", transportWideCC: Bool = true, audioLevel: Bool = true,
                secret: String? = nil) {
        self.publishers = publishers
        self.description = description
        self.bitrate = bitrate
        self.bitrateCap = bitrateCap
        self.keyframeInterval = keyframeInterval
        self.videoCodec = videoCodec
        self.audioCodec = audioCodec
        self.transportWideCC = transportWideCC
        self.audioLevel = audioLevel
        self.secret = secret
    }
}

/// One stream a publisher publishes (an m-line of its offer).
public struct VideoRoomFeedStream: Sendable, Hashable {
    /// `audio`, `video` or `data`.
    public var type: String
    /// Its m-line's index in the publisher's SDP.
    public var mindex: Int
    /// Its m-line's mid in the publisher's SDP.
    public var mid: String
    /// e.g. `vp8`, `opus`; nil for a disabled stream.
    public var codec: String?
    /// Whether it is simulcast (VP8, H.264).
    public var simulcast: Bool
    /// Whether it is inactive.
    public var disabled: Bool

    init(_ json: JanusJSON) throws(JanusError) {
        guard let type = json["type"]?.string, let mindex = json["mindex"]?.integer, let mid = json["mid"]?.string
        else { throw .malformedReply("publisher stream without type, mindex and mid: \(json)") }
        self.type = type
        self.mindex = Int(mindex)
        self.mid = mid
        codec = json["codec"]?.string
        simulcast = json["simulcast"]?.bool ?? false
        disabled = json["disabled"]?.bool ?? false
    }
}

/// An active publisher of a room (a feed others can subscribe to).
public struct VideoRoomFeed: Sendable, Hashable {
    /// The publisher's id in the room.
    public var id: UInt64
    /// The display name it joined with, if any.
    public var display: String?
    /// What it publishes.
    public var streams: [VideoRoomFeedStream]

    init(_ json: JanusJSON) throws(JanusError) {
        guard let id = json["id"]?.id else { throw .malformedReply("publisher without id: \(json)") }
        self.id = id
        display = json["display"]?.string
        var streams: [VideoRoomFeedStream] = []
        for s in json["streams"]?.array ?? [] { streams.append(try VideoRoomFeedStream(s)) }
        self.streams = streams
    }

    static func list(_ json: JanusJSON?) throws(JanusError) -> [VideoRoomFeed] {
        guard let json else { return [] }
        guard let array = json.array else { throw .malformedReply("publishers is not an array: \(json)") }
        var feeds: [VideoRoomFeed] = []
        for p in array { feeds.append(try VideoRoomFeed(p)) }
        return feeds
    }
}

/// What a publisher handle learns when it joins a room.
public struct VideoRoomJoined: Sendable, Hashable {
    /// The room joined.
    public var room: UInt64
    /// Its id in the room (its feed id once it publishes).
    public var id: UInt64
    /// Its private id (subscriptions made on its behalf may pass it).
    public var privateID: UInt64?
    /// The publishers already active.
    public var publishers: [VideoRoomFeed]
}

/// One stream of a subscription (an m-line of Janus's offer).
public struct VideoRoomSubscribedStream: Sendable, Hashable {
    /// Its m-line's index in Janus's offer.
    public var mindex: Int
    /// The mid in the subscriber's PeerConnection.
    public var mid: String
    /// `audio`, `video` or `data`.
    public var type: String
    /// The publisher it comes from, and that publisher's mid for it.
    public var feedID: UInt64?
    /// The publisher's mid of it.
    public var feedMid: String?
    /// Whether Janus relays it (``VideoRoomSubscriber/configure(mid:substream:temporal:send:)``).
    public var send: Bool
    /// Whether it is ready to carry media.
    public var ready: Bool

    init(_ json: JanusJSON) throws(JanusError) {
        guard let mindex = json["mindex"]?.integer, let mid = json["mid"]?.string, let type = json["type"]?.string
        else { throw .malformedReply("subscription stream without mindex, mid and type: \(json)") }
        self.mindex = Int(mindex)
        self.mid = mid
        self.type = type
        feedID = json["feed_id"]?.id
        feedMid = json["feed_mid"]?.string
        send = json["send"]?.bool ?? true
        ready = json["ready"]?.bool ?? false
    }

    static func list(_ json: JanusJSON?) throws(JanusError) -> [VideoRoomSubscribedStream] {
        guard let json else { return [] }
        guard let array = json.array else { throw .malformedReply("streams is not an array: \(json)") }
        var streams: [VideoRoomSubscribedStream] = []
        for s in array { streams.append(try VideoRoomSubscribedStream(s)) }
        return streams
    }
}

/// What a subscription asks for: a publisher's streams (all of them, or the one with `mid`).
public struct VideoRoomStreamRequest: Sendable, Hashable {
    /// The publisher's id in the room.
    public var feed: UInt64
    /// One of its streams (its mid), or nil for all of them.
    public var mid: String?

    /// A request for `feed`'s stream `mid`, or all its streams.
    public init(feed: UInt64, mid: String? = nil) {
        self.feed = feed
        self.mid = mid
    }

    var json: JanusJSON {
        var o: [String: JanusJSON] = ["feed": .id(feed)]
        if let mid { o["mid"] = .string(mid) }
        return .object(o)
    }
}

/// A subscription Janus prepared: its streams and the offer to answer (``VideoRoomSubscriber/start(answer:)``).
public struct VideoRoomSubscription: Sendable, Hashable {
    /// The room.
    public var room: UInt64
    /// Its streams, one per m-line of the offer.
    public var streams: [VideoRoomSubscribedStream]
    /// Janus's SDP offer.
    public var offer: String
}

/// A participant of a room (`listparticipants`).
public struct VideoRoomParticipant: Sendable, Hashable {
    /// Its id in the room.
    public var id: UInt64
    /// Its display name, if any.
    public var display: String?
    /// Whether it is publishing.
    public var publisher: Bool
}

/// An event on a VideoRoom handle: the room's news and the handle's PeerConnection as Janus sees it.
public enum VideoRoomEvent: Sendable, Hashable {
    /// Publishers became active (publisher handles only).
    case publishers([VideoRoomFeed])
    /// A publisher stopped publishing.
    case unpublished(feed: UInt64)
    /// A participant left the room.
    case leaving(feed: UInt64)
    /// The room was destroyed.
    case roomDestroyed(room: UInt64)
    /// A subscription changed (a subscribed publisher left, with `autoupdate`): its streams now, and Janus's new
    /// offer if it renegotiates (answer it with ``VideoRoomSubscriber/start(answer:)``).
    case updated(streams: [VideoRoomSubscribedStream], offer: String?)
    /// Janus now forwards simulcast layer `substream` (0 the smallest) on the subscription's m-line `mid`: after a
    /// ``VideoRoomSubscriber/configure(mid:substream:temporal:send:)`` once a key frame of that layer came (at once
    /// when it was forwarded already), or when it fell back from a layer that stopped arriving (subscriber handles).
    case substream(mid: String?, substream: Int)
    /// The handle's PeerConnection is up.
    case webrtcUp
    /// A medium started or stopped arriving at Janus.
    case media(JanusMediaEvent)
    /// Losses on a medium.
    case slowLink(JanusSlowLink)
    /// The handle's PeerConnection went away.
    case hangup(reason: String)
    /// The handle was detached; the stream ends.
    case detached
    /// An event TokKit does not type (e.g. `talking`), or one it could not read: whole.
    case other(JanusJSON)

    /// Reads a handle event as a VideoRoom event (never fails: what it cannot type is ``other(_:)``).
    public init(_ event: JanusEvent) {
        switch event {
        case .webrtcUp: self = .webrtcUp
        case .media(let m): self = .media(m)
        case .slowLink(let s): self = .slowLink(s)
        case .hangup(let reason): self = .hangup(reason: reason)
        case .detached: self = .detached
        case .other(let json): self = .other(json)
        case .plugin(let data, let jsep):
            self = (try? Self.plugin(data, jsep)) ?? .other(data)
        }
    }

    private static func plugin(_ data: JanusJSON, _ jsep: JanusJSEP?) throws(JanusError) -> VideoRoomEvent? {
        switch data["videoroom"]?.string {
        case "destroyed":
            guard let room = data["room"]?.id else { return nil }
            return .roomDestroyed(room: room)
        case "updated":
            return .updated(streams: try VideoRoomSubscribedStream.list(data["streams"]),
                            offer: jsep?.type == .offer ? jsep?.sdp : nil)
        case "event":
            if data["publishers"] != nil { return .publishers(try VideoRoomFeed.list(data["publishers"])) }
            if let feed = data["unpublished"]?.id { return .unpublished(feed: feed) }
            if let feed = data["leaving"]?.id { return .leaving(feed: feed) }
            if let layer = data["substream"]?.integer, (0...2).contains(layer) {
                return .substream(mid: data["mid"]?.string, substream: Int(layer))
            }
            return nil
        default:
            return nil
        }
    }
}

/// A VideoRoom handle's events: its ``JanusHandle/events`` read as ``VideoRoomEvent``s. Like the stream it reads,
/// it has one reader.
public struct VideoRoomEvents: AsyncSequence, Sendable {
    public typealias Element = VideoRoomEvent
    public typealias Failure = Never
    let base: AsyncStream<JanusEvent>

    /// Reads the handle's stream.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// A typed event.
        public typealias Element = VideoRoomEvent
        public typealias Failure = Never
        var base: AsyncStream<JanusEvent>.AsyncIterator
        public mutating func next() async -> VideoRoomEvent? {
            await base.next().map(VideoRoomEvent.init)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator()) }
}

/// Room management on one VideoRoom handle (any handle may create and destroy rooms; the session server keeps one
/// per Janus session for it).
public struct VideoRoomAdmin: Sendable {
    /// The VideoRoom handle the requests go through.
    public let handle: JanusHandle
    /// The plugin's `admin_key`, if Janus was configured with one (``JanusProcessConfiguration/videoRoomAdminKey``).
    public let adminKey: String?

    /// Room management through `handle`, creating rooms with `adminKey`.
    public init(handle: JanusHandle, adminKey: String?) {
        self.handle = handle
        self.adminKey = adminKey
    }

    /// Attaches a new VideoRoom handle for room management.
    public static func attach(to session: JanusSession, adminKey: String?) async throws(JanusError)
        -> VideoRoomAdmin {
        VideoRoomAdmin(handle: try await session.attach(plugin: VideoRoom.plugin), adminKey: adminKey)
    }

    /// Creates a room (not permanent: it lives until destroyed or Janus stops) and returns its id; with `id` nil,
    /// Janus picks one. An existing id throws ``VideoRoomErrorCode/roomExists``.
    public func createRoom(id: UInt64? = nil, _ settings: VideoRoomSettings = VideoRoomSettings())
        async throws(JanusError) -> UInt64 {
        guard settings.publishers > 0 else { throw .invalidArgument("publishers must be positive") }
        var body: [String: JanusJSON] = [
            "request": "create", "permanent": false,
            "publishers": .integer(Int64(settings.publishers)),
            "bitrate": .integer(Int64(max(settings.bitrate, 0))),
            "bitrate_cap": .bool(settings.bitrateCap),
            "fir_freq": .integer(Int64(max(settings.keyframeInterval, 0))),
            "videocodec": .string(settings.videoCodec), "audiocodec": .string(settings.audioCodec),
            "transport_wide_cc_ext": .bool(settings.transportWideCC),
            "audiolevel_ext": .bool(settings.audioLevel),
            "video_svc": false, "opus_fec": true, "notify_joining": false,
        ]
        if let id { body["room"] = try Self.roomID(id) }
        if let description = settings.description { body["description"] = .string(description) }
        if let secret = settings.secret { body["secret"] = .string(secret) }
        if let adminKey { body["admin_key"] = .string(adminKey) }
        let reply = try await handle.message(.object(body))
        guard reply.data["videoroom"]?.string == "created", let room = reply.data["room"]?.id else {
            throw .malformedReply("create answered \(reply.data)")
        }
        return room
    }

    /// Destroys a room: its participants get ``VideoRoomEvent/roomDestroyed(room:)`` and their PeerConnections end.
    public func destroyRoom(_ room: UInt64, secret: String? = nil) async throws(JanusError) {
        var body: [String: JanusJSON] = ["request": "destroy", "room": try Self.roomID(room)]
        if let secret { body["secret"] = .string(secret) }
        let reply = try await handle.message(.object(body))
        guard reply.data["videoroom"]?.string == "destroyed" else {
            throw .malformedReply("destroy answered \(reply.data)")
        }
    }

    /// Whether a room exists.
    public func exists(_ room: UInt64) async throws(JanusError) -> Bool {
        let reply = try await handle.message(["request": "exists", "room": try Self.roomID(room)])
        guard let exists = reply.data["exists"]?.bool else { throw .malformedReply("exists answered \(reply.data)") }
        return exists
    }

    /// The participants of a room.
    public func participants(in room: UInt64) async throws(JanusError) -> [VideoRoomParticipant] {
        let reply = try await handle.message(["request": "listparticipants", "room": try Self.roomID(room)])
        guard let list = reply.data["participants"]?.array else {
            throw .malformedReply("listparticipants answered \(reply.data)")
        }
        var result: [VideoRoomParticipant] = []
        for p in list {
            guard let id = p["id"]?.id else { throw .malformedReply("participant without id: \(p)") }
            result.append(VideoRoomParticipant(id: id, display: p["display"]?.string,
                                               publisher: p["publisher"]?.bool ?? false))
        }
        return result
    }

    static func roomID(_ id: UInt64) throws(JanusError) -> JanusJSON {
        guard id > 0, id < 1 << 53 else { throw .invalidArgument("room id \(id) is not in 1..<2^53") }
        return .id(id)
    }
}

/// A publisher handle: joins a room, publishes one offer (audio and video m-lines, simulcast or not), and learns
/// of the room's other publishers.
///
/// Threading: any method from any task.
public struct VideoRoomPublisher: Sendable {
    /// Its VideoRoom handle.
    public let handle: JanusHandle

    /// A publisher on `handle` (attached to the VideoRoom plugin).
    public init(handle: JanusHandle) { self.handle = handle }

    /// Attaches a new VideoRoom handle for publishing.
    public static func attach(to session: JanusSession) async throws(JanusError) -> VideoRoomPublisher {
        VideoRoomPublisher(handle: try await session.attach(plugin: VideoRoom.plugin))
    }

    /// The handle's events, typed (one reader: it is the handle's single event stream).
    public var events: VideoRoomEvents { VideoRoomEvents(base: handle.events) }

    /// Joins `room` as a publisher (not yet publishing), with the id `id` (Janus picks one if nil).
    public func join(room: UInt64, id: UInt64? = nil, display: String? = nil) async throws(JanusError)
        -> VideoRoomJoined {
        var body: [String: JanusJSON] = ["request": "join", "ptype": "publisher", "room": try VideoRoomAdmin.roomID(room)]
        if let id { body["id"] = .id(id) }
        if let display { body["display"] = .string(display) }
        let reply = try await handle.message(.object(body))
        guard reply.data["videoroom"]?.string == "joined", let joinedRoom = reply.data["room"]?.id,
              let feed = reply.data["id"]?.id
        else { throw .malformedReply("join answered \(reply.data)") }
        return VideoRoomJoined(room: joinedRoom, id: feed, privateID: reply.data["private_id"]?.id,
                               publishers: try VideoRoomFeed.list(reply.data["publishers"]))
    }

    /// Publishes: sends `offer` (SDP) with a `configure` request and returns Janus's SDP answer. `bitrate` (bits
    /// per second) overrides the room's REMB cap for this publisher.
    public func publish(offer: String, bitrate: Int? = nil, display: String? = nil,
                        timeout: Duration? = nil) async throws(JanusError) -> String {
        var body: [String: JanusJSON] = ["request": "configure", "audio": true, "video": true]
        if let bitrate { body["bitrate"] = .integer(Int64(max(bitrate, 0))) }
        if let display { body["display"] = .string(display) }
        let reply = try await handle.message(.object(body), jsep: JanusJSEP(type: .offer, sdp: offer),
                                             timeout: timeout)
        guard reply.data["configured"]?.string == "ok" else { throw .malformedReply("configure answered \(reply.data)") }
        guard let jsep = reply.jsep, jsep.type == .answer else {
            throw .malformedReply("configure with an offer came back without an answer")
        }
        return jsep.sdp
    }

    /// Changes a publishing handle's settings: its REMB cap, or asks it for a keyframe.
    public func configure(bitrate: Int? = nil, keyframe: Bool = false) async throws(JanusError) {
        var body: [String: JanusJSON] = ["request": "configure"]
        if let bitrate { body["bitrate"] = .integer(Int64(max(bitrate, 0))) }
        if keyframe { body["keyframe"] = true }
        let reply = try await handle.message(.object(body))
        guard reply.data["configured"]?.string == "ok" else { throw .malformedReply("configure answered \(reply.data)") }
    }

    /// Stops publishing (the PeerConnection ends; subscribers get ``VideoRoomEvent/unpublished(feed:)``).
    public func unpublish() async throws(JanusError) {
        let reply = try await handle.message(["request": "unpublish"])
        guard reply.data["unpublished"]?.string == "ok" else { throw .malformedReply("unpublish answered \(reply.data)") }
    }

    /// Leaves the room (unpublishing first if publishing).
    public func leave() async throws(JanusError) {
        let reply = try await handle.message(["request": "leave"])
        guard reply.data["leaving"]?.string == "ok" else { throw .malformedReply("leave answered \(reply.data)") }
    }

    /// Trickles a local candidate of the publisher's PeerConnection.
    public func trickle(candidate: String, sdpMid: String?, sdpMLineIndex: Int?) async throws(JanusError) {
        try await handle.trickle(candidate: candidate, sdpMid: sdpMid, sdpMLineIndex: sdpMLineIndex)
    }

    /// Says the publisher's candidates are complete.
    public func trickleCompleted() async throws(JanusError) { try await handle.trickleCompleted() }

    /// Detaches the handle (leaves the room if still in it).
    public func detach() async throws(JanusError) { try await handle.detach() }
}

/// A subscriber handle: one PeerConnection receiving some publishers' streams, offered by Janus.
///
/// Threading: any method from any task.
public struct VideoRoomSubscriber: Sendable {
    /// Its VideoRoom handle.
    public let handle: JanusHandle

    /// A subscriber on `handle` (attached to the VideoRoom plugin).
    public init(handle: JanusHandle) { self.handle = handle }

    /// Attaches a new VideoRoom handle for a subscription.
    public static func attach(to session: JanusSession) async throws(JanusError) -> VideoRoomSubscriber {
        VideoRoomSubscriber(handle: try await session.attach(plugin: VideoRoom.plugin))
    }

    /// The handle's events, typed (one reader: it is the handle's single event stream).
    public var events: VideoRoomEvents { VideoRoomEvents(base: handle.events) }

    /// Subscribes to `streams` of `room` and returns Janus's offer and the subscription's streams. An unknown
    /// feed throws ``VideoRoomErrorCode/noSuchFeed``.
    public func join(room: UInt64, streams: [VideoRoomStreamRequest], privateID: UInt64? = nil,
                     timeout: Duration? = nil) async throws(JanusError) -> VideoRoomSubscription {
        guard !streams.isEmpty else { throw .invalidArgument("a subscription needs at least one stream") }
        var body: [String: JanusJSON] = [
            "request": "join", "ptype": "subscriber", "room": try VideoRoomAdmin.roomID(room),
            "streams": .array(streams.map(\.json)), "use_msid": false, "autoupdate": true,
        ]
        if let privateID { body["private_id"] = .id(privateID) }
        let reply = try await handle.message(.object(body), timeout: timeout)
        guard reply.data["videoroom"]?.string == "attached", let joinedRoom = reply.data["room"]?.id else {
            throw .malformedReply("subscriber join answered \(reply.data)")
        }
        guard let jsep = reply.jsep, jsep.type == .offer else {
            throw .malformedReply("subscriber join came back without an offer")
        }
        return VideoRoomSubscription(room: joinedRoom, streams: try VideoRoomSubscribedStream.list(reply.data["streams"]),
                                     offer: jsep.sdp)
    }

    /// Completes the negotiation with the subscriber's SDP `answer` (`start`); media flows once ICE and DTLS are up.
    public func start(answer: String, timeout: Duration? = nil) async throws(JanusError) {
        let reply = try await handle.message(["request": "start"], jsep: JanusJSEP(type: .answer, sdp: answer),
                                             timeout: timeout)
        guard reply.data["started"]?.string == "ok" else { throw .malformedReply("start answered \(reply.data)") }
    }

    /// Chooses what Janus forwards on the subscription's m-line `mid`: a simulcast `substream` (0 lowest … 2
    /// highest) and `temporal` layer (0 … 2), and whether to send it at all.
    public func configure(mid: String, substream: Int? = nil, temporal: Int? = nil, send: Bool? = nil)
        async throws(JanusError) {
        var stream: [String: JanusJSON] = ["mid": .string(mid)]
        if let substream {
            guard (0...2).contains(substream) else { throw .invalidArgument("substream \(substream) is not 0...2") }
            stream["substream"] = .integer(Int64(substream))
        }
        if let temporal {
            guard (0...2).contains(temporal) else { throw .invalidArgument("temporal \(temporal) is not 0...2") }
            stream["temporal"] = .integer(Int64(temporal))
        }
        if let send { stream["send"] = .bool(send) }
        let reply = try await handle.message(["request": "configure", "streams": [.object(stream)]])
        guard reply.data["configured"]?.string == "ok" else { throw .malformedReply("configure answered \(reply.data)") }
    }

    /// Pauses the whole subscription (`pause`; resume with ``resume()``).
    public func pause() async throws(JanusError) {
        let reply = try await handle.message(["request": "pause"])
        guard reply.data["paused"]?.string == "ok" else { throw .malformedReply("pause answered \(reply.data)") }
    }

    /// Resumes a paused subscription (`start` without an answer).
    public func resume() async throws(JanusError) {
        let reply = try await handle.message(["request": "start"])
        guard reply.data["started"]?.string == "ok" else { throw .malformedReply("start answered \(reply.data)") }
    }

    /// Ends the subscription (`leave`); the handle stays attached.
    public func leave() async throws(JanusError) {
        let reply = try await handle.message(["request": "leave"])
        guard reply.data["left"]?.string == "ok" else { throw .malformedReply("leave answered \(reply.data)") }
    }

    /// Trickles a local candidate of the subscriber's PeerConnection.
    public func trickle(candidate: String, sdpMid: String?, sdpMLineIndex: Int?) async throws(JanusError) {
        try await handle.trickle(candidate: candidate, sdpMid: sdpMid, sdpMLineIndex: sdpMLineIndex)
    }

    /// Says the subscriber's candidates are complete.
    public func trickleCompleted() async throws(JanusError) { try await handle.trickleCompleted() }

    /// Detaches the handle (ends the subscription).
    public func detach() async throws(JanusError) { try await handle.detach() }
}
