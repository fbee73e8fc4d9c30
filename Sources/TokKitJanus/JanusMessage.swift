/// A session description carried next to a plugin message or event (Janus's `jsep` member).
public struct JanusJSEP: Sendable, Hashable {
    /// Offer or answer.
    public enum Kind: String, Sendable, Hashable {
        /// An offer.
        case offer
        /// An answer.
        case answer
    }
    /// Offer or answer.
    public var type: Kind
    /// The SDP text.
    public var sdp: String

    /// A description of `type` with the SDP text `sdp`.
    public init(type: Kind, sdp: String) {
        self.type = type
        self.sdp = sdp
    }

    var json: JanusJSON { ["type": .string(type.rawValue), "sdp": .string(sdp)] }

    /// Reads a `jsep` member; nil if absent, ``JanusError/malformedReply(_:)`` if present but not an offer or
    /// answer with an SDP.
    static func parse(_ value: JanusJSON?) throws(JanusError) -> JanusJSEP? {
        guard let value, value != .null else { return nil }
        guard let type = value["type"]?.string.flatMap(Kind.init(rawValue:)), let sdp = value["sdp"]?.string else {
            throw .malformedReply("jsep without an offer/answer type and sdp: \(JanusJSON.excerpt(value.jsonText))")
        }
        return JanusJSEP(type: type, sdp: sdp)
    }
}

/// The state of one medium of a handle's PeerConnection as Janus sees it (`{"janus":"media"}`).
public struct JanusMediaEvent: Sendable, Hashable {
    /// `audio` or `video`.
    public var type: String
    /// The m-line's mid, when Janus names it (multistream).
    public var mid: String?
    /// Whether Janus is receiving that medium (false after `no_media_timer` seconds without packets).
    public var receiving: Bool
}

/// Janus's report of losses on one medium of a handle's PeerConnection (`{"janus":"slowlink"}`).
public struct JanusSlowLink: Sendable, Hashable {
    /// The m-line's mid, when Janus names it.
    public var mid: String?
    /// `audio` or `video`, when Janus names it.
    public var media: String?
    /// True: Janus is losing packets it receives (the peer's uplink); false: the peer reports losing what Janus
    /// sends (its downlink).
    public var uplink: Bool
    /// Packets lost in the last second.
    public var lost: Int
}

/// An event Janus sent about a handle outside any reply: the plugin's own events and the core's WebRTC events.
public enum JanusEvent: Sendable, Hashable {
    /// A plugin event (`{"janus":"event"}` without a pending transaction): its `plugindata.data` and `jsep`.
    case plugin(data: JanusJSON, jsep: JanusJSEP?)
    /// The handle's PeerConnection is up (ICE and DTLS done).
    case webrtcUp
    /// A medium started or stopped arriving.
    case media(JanusMediaEvent)
    /// Losses on a medium.
    case slowLink(JanusSlowLink)
    /// The handle's PeerConnection went away (`reason` as Janus says it, e.g. "DTLS alert", "ICE failed").
    case hangup(reason: String)
    /// The handle was detached (by request, or because its session ended). The stream ends after it.
    case detached
    /// A core event of a kind TokKit does not know (a newer Janus), whole.
    case other(JanusJSON)
}

/// One message from Janus, classified: what ``JanusConnection`` needs to match replies and route events.
struct JanusIncoming: Sendable, Equatable {
    /// The `janus` member: `success`, `error`, `ack`, `event`, `server_info`, `webrtcup`, `media`, `hangup`, …
    let kind: String
    let transaction: String?
    let sessionID: UInt64?
    /// The handle it is about (`sender`).
    let sender: UInt64?
    /// The whole message.
    let message: JanusJSON

    /// Parses one text frame. Throws ``JanusError/malformedReply(_:)`` unless it is a JSON object with a string
    /// `janus` member (ids, when present, must be non-negative integers; a transaction, a string).
    init(parsing text: String) throws(JanusError) {
        let message = try JanusJSON(parsing: text)
        guard message.object != nil else { throw .malformedReply("not an object: \(JanusJSON.excerpt(text))") }
        guard let kind = message["janus"]?.string else {
            throw .malformedReply("no string \"janus\" member: \(JanusJSON.excerpt(text))")
        }
        func id(_ key: String) throws(JanusError) -> UInt64? {
            guard let value = message[key] else { return nil }
            guard let id = value.id else { throw .malformedReply("\(key) is not an id: \(value.jsonText)") }
            return id
        }
        if let t = message["transaction"], t.string == nil {
            throw .malformedReply("transaction is not a string: \(t.jsonText)")
        }
        self.kind = kind
        self.transaction = message["transaction"]?.string
        self.sessionID = try id("session_id")
        self.sender = try id("sender")
        self.message = message
    }

    /// The core error of an `error` reply.
    var error: JanusError {
        guard let code = message["error"]?["code"]?.integer, let reason = message["error"]?["reason"]?.string else {
            return .malformedReply("error without code and reason: \(JanusJSON.excerpt(message.jsonText))")
        }
        return .janus(code: Int(code), reason: reason)
    }

    /// This message as a handle event (for messages that are not the reply to a pending request).
    func event() throws(JanusError) -> JanusEvent {
        switch kind {
        case "event":
            guard let data = message["plugindata"]?["data"], data.object != nil else {
                throw .malformedReply("event without plugindata.data: \(JanusJSON.excerpt(message.jsonText))")
            }
            return .plugin(data: data, jsep: try JanusJSEP.parse(message["jsep"]))
        case "webrtcup": return .webrtcUp
        case "media":
            guard let type = message["type"]?.string, let receiving = message["receiving"]?.bool else {
                throw .malformedReply("media event without type and receiving: \(message.jsonText)")
            }
            return .media(JanusMediaEvent(type: type, mid: message["mid"]?.string, receiving: receiving))
        case "slowlink":
            guard let uplink = message["uplink"]?.bool else {
                throw .malformedReply("slowlink event without uplink: \(message.jsonText)")
            }
            let lost = message["lost"]?.integer ?? 0
            return .slowLink(JanusSlowLink(mid: message["mid"]?.string, media: message["media"]?.string,
                                           uplink: uplink, lost: Int(clamping: lost)))
        case "hangup": return .hangup(reason: message["reason"]?.string ?? "")
        case "detached": return .detached
        default: return .other(message)
        }
    }
}

/// The reply to a plugin message: the plugin's `data` and, for negotiations, Janus's `jsep`.
public struct JanusPluginReply: Sendable, Hashable {
    /// `plugindata.data`.
    public var data: JanusJSON
    /// The session description Janus sent with it (an answer to a publisher's offer, an offer for a subscriber).
    public var jsep: JanusJSEP?

    /// Reads the reply to a `message` request (a `success` or an `event`). A plugin error (`error_code` in the
    /// data) throws ``JanusError/plugin(code:reason:)``; anything not shaped as the Janus API says throws
    /// ``JanusError/malformedReply(_:)``.
    init(_ reply: JanusIncoming) throws(JanusError) {
        guard let data = reply.message["plugindata"]?["data"], data.object != nil else {
            throw .malformedReply("\(reply.kind) without plugindata.data: \(JanusJSON.excerpt(reply.message.jsonText))")
        }
        if let code = data["error_code"] {
            guard let code = code.integer else { throw .malformedReply("error_code is not a number: \(data)") }
            throw .plugin(code: Int(code), reason: data["error"]?.string ?? "")
        }
        self.data = data
        self.jsep = try JanusJSEP.parse(reply.message["jsep"])
    }
}
