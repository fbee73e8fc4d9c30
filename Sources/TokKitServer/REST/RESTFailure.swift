import Hummingbird
import TokKitProtocol

/// A REST error: HTTP status plus the protocol error for the body (`{"code", "message"}`).
struct RESTFailure: Error, Sendable {
    var status: HTTPResponse.Status
    var error: ProtocolError

    init(_ status: HTTPResponse.Status, _ error: ProtocolError) {
        self.status = status
        self.error = error
    }

    /// The status Docs/Protocol.md, 5 gives each code: 401 credentials, 403 role, 404 unknown session or stream,
    /// 413 signal data, 503 a server limit, 501 archiving unavailable, 500 internal, 400 everything else (archive
    /// calls answer 409 for a state conflict themselves: ``ArchiveError``).
    init(_ error: ProtocolError) {
        let status: HTTPResponse.Status =
            switch error.code {
            case .authorizationFailure: .unauthorized
            case .unableToPublish, .unableToSignal, .unableToForceDisconnect, .unableToForceUnpublish,
                 .unableToForceMute, .unableToSubscribe, .unableToArchive:
                .forbidden
            case .invalidSessionID, .streamNotFound, .archiveNotFound: .notFound
            case .archivingUnavailable: .init(code: 501)
            case .signalDataTooLong: .contentTooLarge
            case .limitReached: .serviceUnavailable
            case .internalError: .internalServerError
            default: .badRequest
            }
        self.init(status, error)
    }

    var response: Response { JSONResponse.make(RestError(error), status: status) }

    /// 429 / 1430: the peer's quick-start calls are over their rate (``QuickStartLimiter``).
    static let tooManyQuickStartCalls = RESTFailure(
        .tooManyRequests, ProtocolError(.limitReached, "too many quick-start calls from this address"))
}
