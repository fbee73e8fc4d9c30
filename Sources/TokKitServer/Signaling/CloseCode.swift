import NIOWebSocket

/// The WebSocket close code the server ends a socket with (Docs/Protocol.md, 6.2).
enum CloseCode: Hashable, Sendable {
    /// 1000: the client left (`disconnect`) or was force-disconnected.
    case normal
    /// 1001: heartbeat timeout, outbox overflow or server shutdown.
    case goingAway
    /// 1008: connect/resume refused, connect deadline missed, or the connection was taken over by a resume.
    case policyViolation

    var webSocketCode: WebSocketErrorCode {
        switch self {
        case .normal: .normalClosure
        case .goingAway: .goingAway
        case .policyViolation: .policyViolation
        }
    }
}
