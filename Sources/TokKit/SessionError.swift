/// Everything that can go wrong in a session, with the numeric code the OpenTok SDK (and TokKit's wire
/// protocol, Docs/Protocol.md) uses for it.
///
/// Every throwing call of ``Session``, ``Publisher`` and ``Subscriber`` throws this type, and the delegates and
/// ``Session/events`` report it. The server sends the same codes; ``init(code:message:)`` maps them back, so a
/// rule checked on both sides (signal limits, roles) fails with the same case whichever side caught it.
/// The associated string is a human-readable detail, never parsed. A plain value, safe on any thread.
///
/// ## Underlying errors
/// When a layer below the session failed (SDP, the peer connection, ICE, DTLS, SRTP, the encoders, the capturer),
/// the case carries that layer's typed error as its ``Cause``: ``connectionFailed(_:cause:)``,
/// ``invalidParameter(_:cause:)``, ``unableToPublish(_:cause:)`` and ``internalError(_:cause:)``. ``cause`` reads it
/// whatever the case, and ``underlyingError`` gives it as a plain `Error`:
///
/// ```swift
/// func subscriber(_ subscriber: Subscriber, didFailWithError error: SessionError) {
///     if case .dtls(.fingerprintMismatch)? = error.cause { print("the publisher's certificate was not the one offered") }
/// }
/// ```
///
/// ## Equality
/// Two errors are equal when their case, message and cause are all equal (the synthesized `Hashable`), so an
/// error with a cause is not equal to the same case built without one. To ask "which kind of failure", compare
/// ``code`` or match the case (`case .connectionFailed = error`).
public enum SessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 1004: the token was refused (forged, expired, for another session or API key).
    case authorizationFailure(String)
    /// 1005: the session id is malformed or unknown to the server.
    case invalidSession(String)
    /// 1006: the server could not be reached, or the WebSocket handshake failed; or a subscription's media
    /// connection failed, with the ICE or DTLS error as `cause` when one is known.
    case connectionFailed(String, cause: Cause? = nil)
    /// 1010: the operation needs a connected session.
    case notConnected
    /// 1011: a parameter was empty, malformed or out of range (`cause`: the SDP error when the other end's session
    /// description did not parse).
    case invalidParameter(String, cause: Cause? = nil)
    /// 1015: the call is not allowed in the current state (for example `connect` twice).
    case illegalState(String)
    /// 1021: the server did not answer in time.
    case connectionTimeout
    /// 1022: the connection dropped and could not be restored.
    case connectionDropped
    /// 1023: the server refused to resume the connection (grace period over, unknown connection).
    case resumeFailed(String)
    /// 1024: the server does not speak this client's protocol version.
    case incompatibleVersion(String)
    /// 1112: the subscriber is not (or no longer) a subscription of this session.
    case subscriberNotFound
    /// 1113: the publisher is not published in this session.
    case publisherNotFound
    /// 1413: the signal's data is larger than ``SignalLimits/maxDataBytes``.
    case signalDataTooLong(String)
    /// 1461: the signal's type is longer than ``SignalLimits/maxTypeLength`` or contains a character outside
    /// `[A-Za-z0-9-_~]`.
    case invalidSignalType(String)
    /// 1500: the token's role may not publish, or the publisher's media could not start (`cause`: the encoder's or
    /// the capturer's error).
    case unableToPublish(String, cause: Cause? = nil)
    /// 1520: the token's role may not signal (or the recipient is gone).
    case unableToSignal(String)
    /// 1530: the token's role may not force a disconnect, or the target is gone.
    case unableToForceDisconnect(String)
    /// 1535: the token's role may not force a stream to unpublish, or the stream is gone.
    case unableToForceUnpublish(String)
    /// 1540: the token's role may not force mute, or the stream is gone.
    case unableToForceMute(String)
    /// 1550: the signal could not be sent: the session dropped (and it was not to be retried) or gave up.
    case unableToSendSignal(String)
    /// 1600: the token's role may not subscribe.
    case unableToSubscribe(String)
    /// 1604: the stream does not exist (any more).
    case streamNotFound(String)
    /// 2000: a bug or a malformed message; the detail says which (`cause`: the peer connection's error when it
    /// refused an offer or answer).
    case internalError(String, cause: Cause? = nil)
    /// A code this client does not know, passed through as the server sent it.
    case server(code: Int, message: String)

    /// The numeric code.
    public var code: Int {
        switch self {
        case .authorizationFailure: 1004
        case .invalidSession: 1005
        case .connectionFailed: 1006
        case .notConnected: 1010
        case .invalidParameter: 1011
        case .illegalState: 1015
        case .connectionTimeout: 1021
        case .connectionDropped: 1022
        case .resumeFailed: 1023
        case .incompatibleVersion: 1024
        case .subscriberNotFound: 1112
        case .publisherNotFound: 1113
        case .signalDataTooLong: 1413
        case .invalidSignalType: 1461
        case .unableToPublish: 1500
        case .unableToSignal: 1520
        case .unableToForceDisconnect: 1530
        case .unableToForceUnpublish: 1535
        case .unableToForceMute: 1540
        case .unableToSendSignal: 1550
        case .unableToSubscribe: 1600
        case .streamNotFound: 1604
        case .internalError: 2000
        case .server(let code, _): code
        }
    }

    /// Maps a code (as the server sends it) to its case; unknown codes become ``server(code:message:)``.
    public init(code: Int, message: String) {
        switch code {
        case 1004: self = .authorizationFailure(message)
        case 1005: self = .invalidSession(message)
        case 1006: self = .connectionFailed(message)
        case 1010: self = .notConnected
        case 1011: self = .invalidParameter(message)
        case 1015: self = .illegalState(message)
        case 1021: self = .connectionTimeout
        case 1022: self = .connectionDropped
        case 1023: self = .resumeFailed(message)
        case 1024: self = .incompatibleVersion(message)
        case 1112: self = .subscriberNotFound
        case 1113: self = .publisherNotFound
        case 1413: self = .signalDataTooLong(message)
        case 1461: self = .invalidSignalType(message)
        case 1500: self = .unableToPublish(message)
        case 1520: self = .unableToSignal(message)
        case 1530: self = .unableToForceDisconnect(message)
        case 1535: self = .unableToForceUnpublish(message)
        case 1540: self = .unableToForceMute(message)
        case 1550: self = .unableToSendSignal(message)
        case 1600: self = .unableToSubscribe(message)
        case 1604: self = .streamNotFound(message)
        case 2000: self = .internalError(message)
        default: self = .server(code: code, message: message)
        }
    }

    /// The human-readable detail ("" for cases without one).
    public var message: String {
        switch self {
        case .authorizationFailure(let m), .invalidSession(let m), .connectionFailed(let m, _),
            .invalidParameter(let m, _), .illegalState(let m), .resumeFailed(let m), .incompatibleVersion(let m),
            .signalDataTooLong(let m), .invalidSignalType(let m), .unableToPublish(let m, _), .unableToSignal(let m),
            .unableToForceDisconnect(let m), .unableToForceUnpublish(let m), .unableToForceMute(let m),
            .unableToSendSignal(let m), .unableToSubscribe(let m), .streamNotFound(let m), .internalError(let m, _),
            .server(_, let m):
            m
        case .notConnected, .connectionTimeout, .connectionDropped, .subscriberNotFound, .publisherNotFound:
            ""
        }
    }

    /// The lower layer's typed error behind this one, if a lower layer failed.
    public var cause: Cause? {
        switch self {
        case .connectionFailed(_, let cause), .invalidParameter(_, let cause), .unableToPublish(_, let cause),
            .internalError(_, let cause):
            cause
        default:
            nil
        }
    }

    /// ``cause``'s error itself (an `SDPError`, `PeerError`, `ICEError`, `DTLSError`, `SRTPError`,
    /// `StreamingError` or `VideoCaptureError`), for code that handles errors generically.
    public var underlyingError: (any Error & Sendable)? { cause?.error }

    /// `SessionError <code>: <message>`, e.g. `SessionError 1004: token expired`.
    public var description: String {
        let m = message
        return m.isEmpty ? "SessionError \(code)" : "SessionError \(code): \(m)"
    }
}
