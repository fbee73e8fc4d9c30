/// A numeric error code carried by `error` messages and REST error bodies.
///
/// Codes follow the OpenTok SDK where it defines one (1004, 1005, 1010, 1011, 1015, 1413, 1461, ...); the few that
/// TokKit assigns itself are marked so in Docs/Protocol.md. Unknown codes decode fine (the type is a struct, not an
/// enum), so a newer server never breaks an older client. Value type, `Sendable`.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public init(_ rawValue: Int) { self.rawValue = rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Token invalid: forged, tampered, expired, malformed, wrong API key, wrong session; or bad admin credentials.
    public static let authorizationFailure = ErrorCode(1004)
    /// The session id is malformed or unknown to this server.
    public static let invalidSessionID = ErrorCode(1005)
    /// The connection could not be established (e.g. connect message missing before the deadline).
    public static let connectFailed = ErrorCode(1006)
    /// A request other than `connect`, `resume` or `ping` arrived before the connection was established.
    public static let notConnected = ErrorCode(1010)
    /// A message or REST body was malformed, or a field is missing, out of range or names nothing.
    public static let invalidParameter = ErrorCode(1011)
    /// The request is not valid in the connection's current state (e.g. a second `connect`).
    public static let illegalState = ErrorCode(1015)
    /// The resume failed: unknown connection, wrong resume token, or grace period over. (TokKit code.)
    public static let resumeFailed = ErrorCode(1023)
    /// The client's protocol version is not supported (see ``ProtocolVersion/supported``). (TokKit code.)
    public static let incompatibleVersion = ErrorCode(1024)
    /// The addressed subscriber id is not a live subscription of this connection.
    public static let subscriberNotFound = ErrorCode(1112)
    /// Signal data longer than ``ProtocolLimits/maxSignalDataBytes``.
    public static let signalDataTooLong = ErrorCode(1413)
    /// A server limit was reached: too many connections (in total or from one address), sessions, or quick-start
    /// calls from one address; try again later. (TokKit code.)
    public static let limitReached = ErrorCode(1430)
    /// Signal type longer than ``ProtocolLimits/maxSignalTypeLength`` or with a character outside `[A-Za-z0-9-_~]`.
    public static let invalidSignalType = ErrorCode(1461)
    /// The token's role may not publish.
    public static let unableToPublish = ErrorCode(1500)
    /// The token's role may not signal.
    public static let unableToSignal = ErrorCode(1520)
    /// The token's role may not force a connection to disconnect (moderator only).
    public static let unableToForceDisconnect = ErrorCode(1530)
    /// The token's role may not force a stream to unpublish (moderator only).
    public static let unableToForceUnpublish = ErrorCode(1535)
    /// The token's role may not force a stream's audio off (moderator only). (TokKit code.)
    public static let unableToForceMute = ErrorCode(1540)
    /// The token's role may not start, stop, list, download or delete archives (moderator only). (TokKit code.)
    public static let unableToArchive = ErrorCode(1550)
    /// The media router (the SFU that carries a routed session's media) refused or failed a request of this
    /// subscription or published stream, or could not be reached; the message says what it answered. Sent as an
    /// `error` naming the `subscriberId` it concerns (Docs/Protocol.md 6.7). (TokKit code.)
    public static let mediaRouterFailed = ErrorCode(1570)
    /// The token's role may not subscribe. (TokKit code.)
    public static let unableToSubscribe = ErrorCode(1600)
    /// The stream id names no live stream of the session.
    public static let streamNotFound = ErrorCode(1604)
    /// The archive id names no archive of this server. (TokKit code.)
    public static let archiveNotFound = ErrorCode(1605)
    /// Archiving is not available: no archive directory is configured, no recorder is wired in, or the recorder
    /// cannot record the asked output mode. (TokKit code.)
    public static let archivingUnavailable = ErrorCode(1620)
    /// Unexpected server failure.
    public static let internalError = ErrorCode(2000)

    public var description: String { String(rawValue) }
}
