import Hummingbird
import TokKitProtocol

/// The REST API of Docs/Protocol.md, 5: tutorial web service, admin calls and session calls, on a Hummingbird
/// router. Stateless; every handler goes to the ``SessionRegistry`` actor.
struct RESTRoutes: Sendable {
    let registry: SessionRegistry
    let authority: TokenAuthority
    let quickStart: Bool
    /// The quick-start calls' rate limit (nil: none).
    var limiter: QuickStartLimiter? = nil
    /// Counts refused calls by code (nil: not counted).
    var metrics: ServerMetrics? = nil

    /// Largest REST body read, in bytes (bigger signal bodies get 413 / 1413).
    static let maxBodyBytes = 131_072

    func register<Context: RequestContext>(on router: Router<Context>) {
        if quickStart {
            router.get("session") { _, context in
                await self.handle { () async throws(RESTFailure) -> Response in
                    try await self.credentials(room: "session", for: context.peerAddress)
                }
            }
            router.get("room/:name") { _, context in
                await self.handle { () async throws(RESTFailure) -> Response in
                    try await self.credentials(room: context.parameters.get("name") ?? "", for: context.peerAddress)
                }
            }
        }
        router.post("session/create") { request, _ in
            await self.handle { () async throws(RESTFailure) -> Response in
                _ = try Caller.authenticate(request, authority: self.authority, sessionID: nil, allowClientToken: false)
                var request = request
                let body = try await Self.decodeBody(CreateSessionRequest.self, from: &request, emptyAllowed: true)
                do throws(ProtocolError) {
                    return JSONResponse.make(
                        try await self.registry.createSession(
                            mediaMode: body?.mediaMode ?? .relayed, archiveMode: body?.archiveMode ?? .manual))
                } catch {
                    throw RESTFailure(error)
                }
            }
        }
        let project = router.group("v2/project/:apiKey/session/:sessionId")
        project.post("token") { request, context in
            await self.handle { () async throws(RESTFailure) -> Response in
                let sessionID = try await self.authorize(request, context, allowClientToken: false).sessionID
                var request = request
                let body = try await Self.decodeBody(TokenRequest.self, from: &request, emptyAllowed: true)
                do throws(ProtocolError) {
                    let issued = try self.authority.issue(
                        sessionID: sessionID, role: body?.role ?? .publisher, expireTime: body?.expireTime,
                        connectionData: body?.data ?? "", now: WallClock.seconds())
                    return JSONResponse.make(issued)
                } catch {
                    throw RESTFailure(error)
                }
            }
        }
        project.get("stream") { request, context in
            await self.handle { () async throws(RESTFailure) -> Response in
                let sessionID = try await self.authorize(request, context, allowClientToken: true).sessionID
                do throws(ProtocolError) {
                    return JSONResponse.make(StreamList(items: try await self.registry.streamList(sessionID)))
                } catch {
                    throw RESTFailure(error)
                }
            }
        }
        project.post("signal") { request, context in
            await self.handle { () async throws(RESTFailure) -> Response in try await self.signal(request, context, to: nil) }
        }
        project.post("connection/:connectionId/signal") { request, context in
            await self.handle { () async throws(RESTFailure) -> Response in
                try await self.signal(request, context, to: context.parameters.get("connectionId") ?? "")
            }
        }
        project.delete("connection/:connectionId") { request, context in
            await self.handle { () async throws(RESTFailure) -> Response in
                let (sessionID, caller) = try await self.authorize(request, context, allowClientToken: true)
                try caller.require(\.mayModerate, else: .unableToForceDisconnect)
                let connectionID = context.parameters.get("connectionId") ?? ""
                do throws(ProtocolError) {
                    try await self.registry.forceDisconnect(connectionID, in: sessionID)
                } catch {
                    throw Self.notFoundIfUnknown(error)
                }
                return JSONResponse.noContent
            }
        }
        project.post("stream/:streamId/mute") { request, context in
            await self.handle { () async throws(RESTFailure) -> Response in
                let (sessionID, caller) = try await self.authorize(request, context, allowClientToken: true)
                try caller.require(\.mayModerate, else: .unableToForceMute)
                do throws(ProtocolError) {
                    try await self.registry.forceMute(context.parameters.get("streamId") ?? "", in: sessionID)
                } catch {
                    throw RESTFailure(error)
                }
                return JSONResponse.noContent
            }
        }
        project.delete("stream/:streamId") { request, context in
            await self.handle { () async throws(RESTFailure) -> Response in
                let (sessionID, caller) = try await self.authorize(request, context, allowClientToken: true)
                try caller.require(\.mayModerate, else: .unableToForceUnpublish)
                do throws(ProtocolError) {
                    try await self.registry.forceUnpublish(context.parameters.get("streamId") ?? "", in: sessionID)
                } catch {
                    throw RESTFailure(error)
                }
                return JSONResponse.noContent
            }
        }
    }

    // MARK: Handlers

    private func credentials(room: String, for address: String?) async throws(RESTFailure) -> Response {
        if let limiter, !limiter.allow(address) { throw RESTFailure.tooManyQuickStartCalls }
        do throws(ProtocolError) {
            let session = try await registry.room(room)
            let token = try authority.issue(sessionID: session.sessionID, role: .publisher, now: WallClock.seconds())
            return JSONResponse.make(
                SessionCredentials(apiKey: authority.apiKey, sessionID: session.sessionID, token: token.token))
        } catch {
            throw RESTFailure(error)
        }
    }

    private func signal(_ request: Request, _ context: some RequestContext, to target: String?) async throws(RESTFailure)
        -> Response
    {
        let (sessionID, caller) = try await authorize(request, context, allowClientToken: true)
        try caller.require(\.maySignal, else: .unableToSignal)
        var request = request
        let body: RestSignal?
        do {
            body = try await Self.decodeBody(RestSignal.self, from: &request, emptyAllowed: false)
        } catch where error.status == .contentTooLarge {
            throw RESTFailure(.contentTooLarge, ProtocolError(.signalDataTooLong, "signal data too long"))
        }
        do throws(ProtocolError) {
            try await registry.deliverSignal(
                in: sessionID, from: nil, to: target, type: body?.type ?? "", data: body?.data ?? "")
        } catch {
            throw Self.notFoundIfUnknown(error)
        }
        return JSONResponse.noContent
    }

    /// Checks the path's API key, the credentials and the session; returns the session id and the caller.
    private func authorize(_ request: Request, _ context: some RequestContext, allowClientToken: Bool)
        async throws(RESTFailure) -> (sessionID: String, caller: Caller)
    {
        let sessionID = context.parameters.get("sessionId") ?? ""
        let caller = try Caller.authenticate(
            request, authority: authority, sessionID: sessionID, allowClientToken: allowClientToken)
        guard let apiKey = context.parameters.get("apiKey"), authority.isAPIKey(apiKey) else {
            throw RESTFailure(.unauthorized, ProtocolError(.authorizationFailure, "wrong API key in path"))
        }
        do throws(ProtocolError) {
            _ = try await registry.session(sessionID)
        } catch {
            throw RESTFailure(error)
        }
        return (sessionID, caller)
    }

    // MARK: Helpers

    /// Runs a handler, turning a failure into its JSON error response (counted as refused, by code).
    private func handle(_ body: () async throws(RESTFailure) -> Response) async -> Response {
        do {
            return try await body()
        } catch {
            metrics?.refused(error.error.code, via: .rest)
            return error.response
        }
    }

    /// 1011 "no such connection" is 404 on REST paths that name a connection.
    private static func notFoundIfUnknown(_ error: ProtocolError) -> RESTFailure {
        error.code == .invalidParameter ? RESTFailure(.notFound, error) : RESTFailure(error)
    }

    /// Reads and decodes a JSON body of at most `limit` bytes (nil when empty and `emptyAllowed`). The archive calls
    /// use it too, with their own limit.
    static func decodeBody<T: Decodable>(_ type: T.Type, from request: inout Request, emptyAllowed: Bool,
                                         limit: Int = maxBodyBytes) async throws(RESTFailure) -> T?
    {
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: limit)
        } catch {
            throw RESTFailure(.contentTooLarge, ProtocolError(.invalidParameter, "body too large"))
        }
        if buffer.readableBytes == 0 {
            if emptyAllowed { return nil }
            throw RESTFailure(.badRequest, ProtocolError(.invalidParameter, "missing JSON body"))
        }
        do throws(ProtocolError) {
            return try WireCodec.decode(type, from: buffer.readableBytesView)
        } catch {
            throw RESTFailure(.badRequest, error)
        }
    }
}
