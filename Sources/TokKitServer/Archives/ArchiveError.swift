import TokKitProtocol

/// Why an archive call failed. Each case has its protocol code and HTTP status (Docs/Protocol.md, 5.7).
public enum ArchiveError: Error, Sendable, Equatable {
    /// No archive directory is configured (`--archive-directory`), or no recorder is wired in: 501 / 1620.
    case unavailable(String)
    /// The session is unknown: 404 / 1005.
    case sessionNotFound
    /// No archive has that id (or the id is malformed): 404 / 1605.
    case notFound
    /// The archive or session is not in a state that allows the call (starting twice, stopping a stopped archive,
    /// deleting one that records): 409 / 1015.
    case conflict(String)
    /// A bad option (resolution, name, count, offset...): 400 / 1011.
    case invalid(String)
    /// The recorder could not start (it could not join the session, or refused the output mode): 500 / 2000, or
    /// 501 / 1620 for an output mode it does not support.
    case recorder(ArchiveRecorderError)
    /// The archive store (SQLite) or the archive directory failed: 500 / 2000.
    case storage(String)
    /// The server runs as many archives as it allows (``ArchiveService/maximumRunning``): 503 / 1430.
    case limit(String)

    /// The protocol error of a REST reply.
    public var protocolError: ProtocolError {
        switch self {
        case let .unavailable(reason): ProtocolError(.archivingUnavailable, reason)
        case .sessionNotFound: ProtocolError(.invalidSessionID, "unknown session id")
        case .notFound: ProtocolError(.archiveNotFound, "no such archive")
        case let .conflict(reason): ProtocolError(.illegalState, reason)
        case let .invalid(reason): ProtocolError(.invalidParameter, reason)
        case let .recorder(.unsupportedOutputMode(mode)):
            ProtocolError(.archivingUnavailable, "output mode \(mode.rawValue) is not available")
        // The detail (paths, SQLite's text, the recorder's) is logged, never sent: it says too much of the server.
        case .recorder(.failed): ProtocolError(.internalError, "the recorder failed")
        case .storage: ProtocolError(.internalError, "archive storage failed")
        case let .limit(reason): ProtocolError(.limitReached, reason)
        }
    }

    /// The HTTP status of a REST reply.
    var status: Int {
        switch self {
        case .unavailable, .recorder(.unsupportedOutputMode): 501
        case .sessionNotFound, .notFound: 404
        case .conflict: 409
        case .invalid: 400
        case .recorder(.failed), .storage: 500
        case .limit: 503
        }
    }
}
