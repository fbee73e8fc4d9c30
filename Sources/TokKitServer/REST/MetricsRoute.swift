import Hummingbird
import TokKitProtocol

/// `GET /metrics`: the server's Prometheus metrics (``ServerMetrics``) in the text exposition format, for admin
/// callers only (the credentials of Docs/Protocol.md 5.1: `X-OPENTOK-AUTH` or `X-TB-PARTNER-AUTH`); anyone else gets
/// 401 / 1004, a client token included. Stateless, `Sendable`.
struct MetricsRoute: Sendable {
    let authority: TokenAuthority
    let metrics: ServerMetrics
    /// What the server holds now, for the gauges.
    let stats: @Sendable () async -> RegistryStats

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("metrics") { request, _ in
            do throws(RESTFailure) {
                _ = try Caller.authenticate(request, authority: self.authority, sessionID: nil, allowClientToken: false)
            } catch {
                self.metrics.refused(error.error.code, via: .rest)
                return error.response
            }
            let text = self.metrics.exposition(await self.stats())
            return Response(
                status: .ok, headers: [.contentType: ServerMetrics.contentType, .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: text)))
        }
    }
}
