import Hummingbird
import TokKitProtocol

/// The browser client of Docs/Browser.md, served by the server itself: `tokkit.js` (the JavaScript client) and
/// `index.html` (a test page: camera + microphone, every stream subscribed, text chat). Both files are compiled
/// into the server (SwiftPM `embedInCode` resources), so a clean clone and an in-process server serve them with
/// no file lookup.
///
/// Routes: `GET /` and `GET /index.html` (the page), `GET /tokkit.js` (the module). With `quickStart` also the
/// development route `GET /credentials/{sessionId}`: `{"apiKey", "sessionId", "token"}` with a fresh publisher
/// token for an existing session created through quick start (`GET /room/{name}`, ``TokKitServer/room(_:)``;
/// 404 / 1005 for any other), so that a page can join a session a program made that way; rate limited with the
/// other quick-start calls (429 / 1430).
///
/// Stateless and `Sendable`; the file bodies are built once and shared by every response.
struct BrowserClient: Sendable {
    let registry: SessionRegistry
    let authority: TokenAuthority
    let quickStart: Bool
    /// The quick-start calls' rate limit (nil: none).
    var limiter: QuickStartLimiter? = nil
    /// Counts refused calls by code (nil: not counted).
    var metrics: ServerMetrics? = nil

    /// One served file.
    struct File: Sendable {
        let path: String
        let contentType: String
        let body: ByteBuffer
    }

    static let script = File(
        path: "tokkit.js", contentType: "text/javascript; charset=utf-8",
        body: ByteBuffer(bytes: PackageResources.tokkit_js))
    static let page = File(
        path: "index.html", contentType: "text/html; charset=utf-8",
        body: ByteBuffer(bytes: PackageResources.index_html))

    func register<Context: RequestContext>(on router: Router<Context>) {
        for (path, file) in [("/", Self.page), ("index.html", Self.page), ("tokkit.js", Self.script)] {
            router.get(RouterPath(path)) { _, _ in Self.response(file) }
        }
        guard quickStart else { return }
        router.get("credentials/:sessionId") { _, context in
            await self.credentials(sessionID: context.parameters.get("sessionId") ?? "", for: context.peerAddress)
        }
    }

    static func response(_ file: File) -> Response {
        Response(
            status: .ok, headers: [.contentType: file.contentType, .cacheControl: "no-cache"],
            body: .init(byteBuffer: file.body))
    }

    private func credentials(sessionID: String, for address: String?) async -> Response {
        let failure: RESTFailure
        if let limiter, !limiter.allow(address) {
            failure = .tooManyQuickStartCalls
        } else {
            do throws(ProtocolError) {
                _ = try await registry.quickStartSession(sessionID)
                let token = try authority.issue(sessionID: sessionID, role: .publisher, now: WallClock.seconds())
                return JSONResponse.make(
                    SessionCredentials(apiKey: authority.apiKey, sessionID: sessionID, token: token.token))
            } catch {
                failure = RESTFailure(error)
            }
        }
        metrics?.refused(failure.error.code, via: .rest)
        return failure.response
    }
}
