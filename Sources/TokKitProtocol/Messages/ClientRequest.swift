/// One client-to-server WebSocket message: a ``ClientMessage`` plus an optional request id.
///
/// `rid` is chosen by the client (any integer; unique among its outstanding requests is enough). The server answers
/// every request that carries one with exactly one `ack` or `error` holding the same `rid`; requests without it get
/// an `error` (no `rid`) on failure and nothing on success. Value type, `Sendable`.
public struct ClientRequest: Hashable, Sendable, Codable {
    public var rid: Int?
    public var message: ClientMessage

    public init(rid: Int? = nil, _ message: ClientMessage) {
        self.rid = rid
        self.message = message
    }

    public init(from decoder: any Decoder) throws {
        let envelope = try decoder.container(keyedBy: EnvelopeKey.self)
        rid = try envelope.decodeIfPresent(Int.self, forKey: .rid)
        let type = try envelope.decode(String.self, forKey: .type)
        switch type {
        case "connect": message = .connect(try .init(from: decoder))
        case "resume": message = .resume(try .init(from: decoder))
        case "disconnect": message = .disconnect
        case "ping": message = .ping(try .init(from: decoder))
        case "publish": message = .publish(try .init(from: decoder))
        case "unpublish": message = .unpublish(try .init(from: decoder))
        case "updateStream": message = .updateStream(try .init(from: decoder))
        case "subscribe": message = .subscribe(try .init(from: decoder))
        case "unsubscribe": message = .unsubscribe(try .init(from: decoder))
        case "subscriberPreferences": message = .subscriberPreferences(try .init(from: decoder))
        case "negotiation": message = .negotiation(try .init(from: decoder))
        case "signal": message = .signal(try .init(from: decoder))
        case "forceDisconnect": message = .forceDisconnect(try .init(from: decoder))
        case "forceUnpublish": message = .forceUnpublish(try .init(from: decoder))
        case "forceMute": message = .forceMute(try .init(from: decoder))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: envelope, debugDescription: "unknown message type \"\(type.prefix(64))\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var envelope = encoder.container(keyedBy: EnvelopeKey.self)
        try envelope.encode(message.type, forKey: .type)
        try envelope.encodeIfPresent(rid, forKey: .rid)
        switch message {
        case let .connect(m): try m.encode(to: encoder)
        case let .resume(m): try m.encode(to: encoder)
        case .disconnect: break
        case let .ping(m): try m.encode(to: encoder)
        case let .publish(m): try m.encode(to: encoder)
        case let .unpublish(m): try m.encode(to: encoder)
        case let .updateStream(m): try m.encode(to: encoder)
        case let .subscribe(m): try m.encode(to: encoder)
        case let .unsubscribe(m): try m.encode(to: encoder)
        case let .subscriberPreferences(m): try m.encode(to: encoder)
        case let .negotiation(m): try m.encode(to: encoder)
        case let .signal(m): try m.encode(to: encoder)
        case let .forceDisconnect(m): try m.encode(to: encoder)
        case let .forceUnpublish(m): try m.encode(to: encoder)
        case let .forceMute(m): try m.encode(to: encoder)
        }
    }
}
