import TokKitProtocol

/// Fuzz entry for the server-to-client WebSocket messages (every ``ServerMessage`` type), as a client reads them
/// with ``WireCodec/decodeServer(_:)``.
///
/// Each input ends as a message, an unknown type (ignored by clients) or a malformed message; a message must
/// re-encode to JSON that decodes to the same message, and an "unknown" type must really be none of the known ones.
public func fuzzServerMessage(_ data: UnsafeRawBufferPointer) {
    switch WireCodec.decodeServer(Array(data)) {
    case let .message(message):
        let again = WireCodec.decodeServer(WireCodec.encode(message))
        precondition(again == .message(message), "\(message.type) does not survive re-encoding")
    case let .unknownType(type):
        precondition(!FuzzServerTypes.known.contains(type), "known type \(type) reported unknown")
    case let .malformed(reason):
        _ = reason
    }
}

/// The `type` of every server message (Docs/Protocol.md, 6.4).
enum FuzzServerTypes {
    static let known: Set<String> = [
        "connected", "connectionCreated", "connectionDestroyed", "streamCreated", "streamDestroyed",
        "streamPropertyChanged", "signal", "subscribe", "unsubscribe", "negotiation", "muteForced", "archiveStarted",
        "archiveStopped", "ack", "error", "pong",
    ]
}
