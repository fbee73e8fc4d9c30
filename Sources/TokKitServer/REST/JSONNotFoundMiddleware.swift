import Hummingbird
import TokKitProtocol

/// Gives a request no route answers (and no static file matches) the error body every REST error has
/// (Docs/Protocol.md, 5): 404 `{"code": 1011, "message": …}` instead of Hummingbird's empty 404. This covers the
/// tutorial calls (`/session`, `/room/…`, `/credentials/…`) when quick start is off.
///
/// Added to the router after every route, so it only wraps the not-found path; stateless, `Sendable`. Each such
/// answer counts as a refused REST call (1011) in `metrics`.
struct JSONNotFoundMiddleware<Context: RequestContext>: RouterMiddleware {
    var metrics: ServerMetrics? = nil

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            metrics?.refused(.invalidParameter, via: .rest)
            return RESTFailure(.notFound, ProtocolError(.invalidParameter, "no such path")).response
        }
    }
}
