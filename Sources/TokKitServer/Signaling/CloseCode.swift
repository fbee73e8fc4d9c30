import NIOWebSocket

/// The WebSocket close code the server ends a socket with (Docs/Protocol.md, 6.2).
enum CloseCode: Hashable, Sendable, CaseIterable {
    /// 1000: the client left (`disconnect`) or was force-disconnected.
    case normal
    /// 1001: heartbeat timeout or server shutdown.
    case goingAway
    /// 1008 with the reason "outbox full": the client let more than ``ServerConfiguration/outboxCapacity`` messages
    /// or ``ServerConfiguration/outboxMaxBytes`` bytes pile up unread.
    case outboxOverflow
    /// 1008: connect/resume refused, connect deadline missed, or the connection was taken over by a resume.
    case policyViolation
    /// 1002: frames out of order (a continuation with no message started, or a new message inside a fragmented one).
    case protocolError
    /// 1007: a text message that is not valid UTF-8 (RFC 6455, 8.1).
    case invalidPayload
    /// 1009: a message over ``ProtocolLimits/maxFrameBytes``, in one frame or in fragments.
    case messageTooBig

    /// The close frame's reason text, where the code alone is not clear.
    var reason: String? {
        self == .outboxOverflow ? "outbox full" : nil
    }

    var webSocketCode: WebSocketErrorCode {
        switch self {
        case .normal: .normalClosure
        case .goingAway: .goingAway
        case .policyViolation, .outboxOverflow: .policyViolation
        case .protocolError: .protocolError
        case .invalidPayload: .dataInconsistentWithMessage
        case .messageTooBig: .messageTooLarge
        }
    }
}
