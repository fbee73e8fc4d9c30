import Hummingbird
import TokKitProtocol

/// Gives a request no route answers (and no static file matches) the error body every REST error has
/// (Docs/Protocol.md, 5): 404 `{"code": 1011, "message": …}` instead of Hummingbird's empty 404. This covers the
/// tutorial calls (`/session`, `/room/…`, `/credentials/…`) when quick start is off.
///
/// Added to the router after every route, so it only wraps the not-found path; stateless, `Sendable`.
struct JSONNotFoundMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return RESTFailure(.notFound, ProtocolError(.invalidParameter, "no such path")).response
        }
    }
}
