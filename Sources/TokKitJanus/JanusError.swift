/// Why a Janus request, connection or process failed. Every case says which, so the session server can turn it
/// into a typed error or a recoverable event for its clients.
public enum JanusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The Janus core refused the request (`{"janus":"error"}`): its code (`apierror.h`, e.g. 403 unauthorized,
    /// 457 unknown request, 458 no such session, 459 no such handle) and reason.
    case janus(code: Int, reason: String)
    /// The plugin refused the request (`plugindata.data.error_code`): its code (VideoRoom: ``VideoRoomErrorCode``,
    /// e.g. 426 no such room) and reason.
    case plugin(code: Int, reason: String)
    /// No final reply to `request` within its deadline.
    case timeout(request: String, after: Duration)
    /// The transport to Janus closed (Janus stopped or died, the socket broke, or ``JanusConnection/close()``):
    /// every pending request fails with this, and every handle's event stream ends.
    case transportClosed(String)
    /// The instance could not be reached at `url` (refused, no route, no WebSocket upgrade, not Janus) within the
    /// connect deadline.
    case unreachable(url: String, reason: String)
    /// A reply or event that is not what the Janus API promises (not JSON, a missing or mistyped field).
    case malformedReply(String)
    /// The Janus session ended (Janus timed it out, or it was destroyed) before or while the request ran.
    case sessionClosed(UInt64)
    /// The handle was detached before or while the request ran.
    case handleDetached(UInt64)
    /// The calling task was cancelled while waiting for the reply.
    case cancelled
    /// A request argument TokKit refuses before sending it (e.g. an id Janus cannot represent).
    case invalidArgument(String)
    /// ``JanusProcess``: a file it needs (the `janus` executable, the VideoRoom plugin, the WebSockets transport)
    /// is missing; `scripts/bootstrap` installs Debian's `janus`.
    case notInstalled(String)
    /// ``JanusProcess``: the configuration cannot work (e.g. a loopback address: Janus gathers no ICE candidate
    /// on loopback interfaces).
    case invalidConfiguration(String)
    /// ``JanusProcess``: the process could not be started, or exited before it answered (`status` -1: still
    /// running but never answered); `log` is the tail of its output.
    case processFailed(status: Int32, log: String)

    /// The Janus or plugin error code, if Janus refused the request.
    public var code: Int? {
        switch self {
        case .janus(let code, _), .plugin(let code, _): code
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .janus(let code, let reason): "janus: error \(code): \(reason)"
        case .plugin(let code, let reason): "janus: plugin error \(code): \(reason)"
        case .timeout(let request, let after): "janus: no reply to \(request) within \(after)"
        case .transportClosed(let why): "janus: transport closed: \(why)"
        case .unreachable(let url, let reason): "janus: cannot reach \(url): \(reason)"
        case .malformedReply(let why): "janus: malformed reply: \(why)"
        case .sessionClosed(let id): "janus: session \(id) is closed"
        case .handleDetached(let id): "janus: handle \(id) is detached"
        case .cancelled: "janus: cancelled"
        case .invalidArgument(let why): "janus: invalid argument: \(why)"
        case .notInstalled(let what): "janus: \(what) is not installed (run scripts/bootstrap)"
        case .invalidConfiguration(let why): "janus: invalid configuration: \(why)"
        case .processFailed(let status, let log): "janus: process failed (status \(status)); log tail:\n\(log)"
        }
    }
}

/// The VideoRoom plugin's error codes (`janus_videoroom.c`), as found in ``JanusError/plugin(code:reason:)``.
public enum VideoRoomErrorCode {
    /// An unknown error (499).
    public static let unknown = 499
    /// No message (421).
    public static let noMessage = 421
    /// The body is not valid JSON (422).
    public static let invalidJSON = 422
    /// An unknown or misplaced request (423).
    public static let invalidRequest = 423
    /// The handle must join a room first (424).
    public static let joinFirst = 424
    /// The handle already joined (425).
    public static let alreadyJoined = 425
    /// No such room (426).
    public static let noSuchRoom = 426
    /// The room exists already (427).
    public static let roomExists = 427
    /// No such feed, or it is not publishing (428).
    public static let noSuchFeed = 428
    /// A mandatory element is missing (429).
    public static let missingElement = 429
    /// An element has the wrong type or value (430).
    public static let invalidElement = 430
    /// The JSEP type is not the one expected (431).
    public static let invalidSDPType = 431
    /// The room has its maximum of publishers (432).
    public static let publishersFull = 432
    /// Unauthorized: wrong secret, PIN or admin key (433).
    public static let unauthorized = 433
    /// The handle is already publishing (434).
    public static let alreadyPublished = 434
    /// The handle is not publishing (435).
    public static let notPublished = 435
    /// The participant id is taken (436).
    public static let idExists = 436
    /// The SDP was refused (437).
    public static let invalidSDP = 437
}

/// The Janus core's error codes (`apierror.h`), as found in ``JanusError/janus(code:reason:)``.
public enum JanusErrorCode {
    /// Wrong or missing API secret or token (403).
    public static let unauthorized = 403
    /// An unknown error (490).
    public static let unknown = 490
    /// No request (452).
    public static let missingRequest = 452
    /// An unknown request (453).
    public static let unknownRequest = 453
    /// Not valid JSON (454).
    public static let invalidJSON = 454
    /// Not a JSON object (455).
    public static let invalidJSONObject = 455
    /// A mandatory element is missing (456).
    public static let missingMandatoryElement = 456
    /// A request not valid at this path, e.g. an unknown `janus` (457).
    public static let invalidRequestPath = 457
    /// No such session (458).
    public static let sessionNotFound = 458
    /// No such handle (459).
    public static let handleNotFound = 459
    /// No such plugin (460).
    public static let pluginNotFound = 460
    /// The plugin refused the attach (461).
    public static let pluginAttach = 461
    /// The plugin could not take the message (462).
    public static let pluginMessage = 462
    /// The plugin refused the detach (463).
    public static let pluginDetach = 463
    /// An unknown JSEP type (464).
    public static let jsepUnknownType = 464
    /// The JSEP SDP is not valid (465).
    public static let jsepInvalidSDP = 465
    /// An element has the wrong type (467).
    public static let invalidElementType = 467
}
