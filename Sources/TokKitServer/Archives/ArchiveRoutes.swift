import Hummingbird
import NIOPosix
import TokKitProtocol

/// The archive REST API of Docs/Protocol.md, 5.7, OpenTok-shaped, under `v2/project/{apiKey}/archive`; and, with
/// quick start on, the tutorial's web service calls `POST /start/{sessionId}`, `POST /stop/{archiveId}` and
/// `GET /view/{archiveId}` (5.2). Stateless; every call goes to the ``ArchiveService`` actor.
///
/// Callers: admin credentials, or a moderator token of the archive's session (another role: 403 / 1550; a token
/// of another session: 404 / 1605 for an archive id, as if there were none, and 401 / 1004 for a start). An
/// archive id from a path reaches the store and the disk only once ``ArchiveID/isValid(_:)`` accepted it.
struct ArchiveRoutes: Sendable {
    let service: ArchiveService
    let registry: SessionRegistry
    let authority: TokenAuthority
    let quickStart: Bool
    let links: ArchiveLinkSigner
    /// The quick-start calls' rate limit (nil: none).
    var limiter: QuickStartLimiter? = nil
    /// Counts refused calls by code (nil: not counted).
    var metrics: ServerMetrics? = nil

    /// Largest start body read, in bytes.
    static let maxBodyBytes = 16_384
    private static let fileIO = FileIO(threadPool: .singleton)

    func register<Context: RequestContext>(on router: Router<Context>) {
        let archives = router.group("v2/project/:apiKey/archive")
        archives.post { request, context in
            await self.handle { () async throws(RESTFailure) -> Response in
                let caller = try self.authenticate(request, context)
                var request = request
                let options = try await Self.decodeBody(ArchiveOptions.self, from: &request)
                if case let .client(claims) = caller, !claims.sessionID.isSameBytes(as: options.sessionID) {
                    throw RESTFailure(.unauthorized, ProtocolError(.authorizationFailure, "token is for another session"))
                }
                return try await self.reply { () async throws(ArchiveError) in try await self.service.start(options) }
            }
        }
        archives.get { request, context in
            await self.handle { () async throws(RESTFailure) -> Response in
                let caller = try self.authenticate(request, context)
                let query = request.uri.queryParameters
                var sessionID = query.get("sessionId")
                if case let .client(claims) = caller {
                    if let sessionID, !claims.sessionID.isSameBytes(as: sessionID) {
                        throw RESTFailure(.unauthorized, ProtocolError(.authorizationFailure, "token is for another session"))
                    }
                    sessionID = claims.sessionID
                }
                let offset = try Self.integer(query.get("offset"), name: "offset", default: 0)
                let count = try Self.integer(query.get("count"), name: "count", default: 50)
                do throws(ArchiveError) {
                    let page = try await self.service.list(sessionID: sessionID, offset: offset, count: count)
                    return JSONResponse.make(ArchiveList(count: page.total, items: page.items.map(self.view)))
                } catch {
                    throw Self.failure(error)
                }
            }
        }
        archives.get(":archiveId") { request, context in
            await self.handle { () async throws(RESTFailure) -> Response in
                JSONResponse.make(self.view(try await self.authorizedArchive(request, context)))
            }
        }
        archives.post(":archiveId/stop") { request, context in
            await self.handle { () async throws(RESTFailure) -> Response in
                let record = try await self.authorizedArchive(request, context)
                return try await self.reply { () async throws(ArchiveError) in try await self.service.stop(record.id) }
            }
        }
        archives.delete(":archiveId") { request, context in
            await self.handle { () async throws(RESTFailure) -> Response in
                let record = try await self.authorizedArchive(request, context)
                do throws(ArchiveError) {
                    try await self.service.delete(record.id)
                } catch {
                    throw Self.failure(error)
                }
                return JSONResponse.noContent
            }
        }
        archives.get(":archiveId/download") { request, context in
            await self.handle { () async throws(RESTFailure) -> Response in
                let id = context.parameters.get("archiveId") ?? ""
                let query = request.uri.queryParameters
                if query.get("signature") != nil {
                    guard ArchiveID.isValid(id), self.links.verify(
                        id: id, expires: query.get("expires"), signature: query.get("signature"), now: WallClock.seconds())
                    else {
                        throw RESTFailure(.unauthorized, ProtocolError(.authorizationFailure, "bad or expired link"))
                    }
                } else {
                    _ = try await self.authorizedArchive(request, context)
                }
                return try await self.download(id, stream: query.get("stream"), request: request, context: context)
            }
        }
        archives.get(":archiveId/view") { request, context in
            await self.handle { () async throws(RESTFailure) -> Response in
                try await self.viewPage(self.authorizedArchive(request, context))
            }
        }
        guard quickStart else { return }
        router.post("start/:sessionId") { request, context in
            await self.handle { () async throws(RESTFailure) -> Response in
                try self.checkRate(context)
                let sessionID = context.parameters.get("sessionId") ?? ""
                try await self.requireQuickStartSession(sessionID)
                var request = request
                let body = try await Self.decodeBody(QuickStartArchive.self, from: &request, emptyAllowed: true)
                let options = ArchiveOptions(
                    sessionID: sessionID, name: body?.name, outputMode: body?.outputMode, hasAudio: body?.hasAudio,
                    hasVideo: body?.hasVideo, resolution: body?.resolution)
                return try await self.reply { () async throws(ArchiveError) in try await self.service.start(options) }
            }
        }
        router.post("stop/:archiveId") { request, context in
            await self.handle { () async throws(RESTFailure) -> Response in
                try self.checkRate(context)
                let record = try await self.quickStartArchive(context)
                return try await self.reply { () async throws(ArchiveError) in try await self.service.stop(record.id) }
            }
        }
        router.get("view/:archiveId") { request, context in
            await self.handle { () async throws(RESTFailure) -> Response in
                try self.checkRate(context)
                return try await self.viewPage(self.quickStartArchive(context))
            }
        }
        router.get("archive/:archiveId") { request, context in
            await self.handle { () async throws(RESTFailure) -> Response in
                try self.checkRate(context)
                return JSONResponse.make(self.signedView(try await self.quickStartArchive(context)))
            }
        }
    }

    // MARK: Callers

    /// Admin credentials, or a moderator token (of any session: each call checks the session). Then the path's
    /// API key.
    private func authenticate(_ request: Request, _ context: some RequestContext) throws(RESTFailure) -> Caller {
        let caller: Caller
        if let token = request.headers[Caller.tokenHeader], request.headers[Caller.adminJWTHeader] == nil,
           request.headers[Caller.partnerHeader] == nil
        {
            do throws(ProtocolError) {
                caller = .client(try authority.verify(token, now: WallClock.seconds()))
            } catch {
                throw RESTFailure(.unauthorized, error)
            }
        } else {
            caller = try Caller.authenticate(request, authority: authority, sessionID: nil, allowClientToken: false)
        }
        guard let apiKey = context.parameters.get("apiKey"), authority.isAPIKey(apiKey) else {
            throw RESTFailure(.unauthorized, ProtocolError(.authorizationFailure, "wrong API key in path"))
        }
        try caller.require(\.mayModerate, else: .unableToArchive)
        return caller
    }

    /// The archive of the path, once the caller may see it (a token of another session: as if there were none).
    private func authorizedArchive(_ request: Request, _ context: some RequestContext) async throws(RESTFailure)
        -> ArchiveRecord
    {
        let caller = try authenticate(request, context)
        let record: ArchiveRecord
        do throws(ArchiveError) {
            record = try await service.archive(context.parameters.get("archiveId") ?? "")
        } catch {
            throw Self.failure(error)
        }
        if case let .client(claims) = caller, !claims.sessionID.isSameBytes(as: record.sessionID) {
            throw Self.failure(.notFound)
        }
        return record
    }

    private func checkRate(_ context: some RequestContext) throws(RESTFailure) {
        if let limiter, !limiter.allow(context.peerAddress) { throw RESTFailure.tooManyQuickStartCalls }
    }

    /// Quick-start calls reach only sessions quick start made (as `GET /credentials/{id}`): 404 / 1005 otherwise.
    private func requireQuickStartSession(_ sessionID: String) async throws(RESTFailure) {
        do throws(ProtocolError) {
            _ = try await registry.quickStartSession(sessionID)
        } catch {
            throw RESTFailure(error)
        }
    }

    private func quickStartArchive(_ context: some RequestContext) async throws(RESTFailure) -> ArchiveRecord {
        let record: ArchiveRecord
        do throws(ArchiveError) {
            record = try await service.archive(context.parameters.get("archiveId") ?? "")
        } catch {
            throw Self.failure(error)
        }
        do throws(RESTFailure) {
            try await requireQuickStartSession(record.sessionID)
        } catch {
            throw Self.failure(.notFound)
        }
        return record
    }

    // MARK: Replies

    private func reply(_ call: () async throws(ArchiveError) -> ArchiveRecord) async throws(RESTFailure) -> Response {
        do throws(ArchiveError) {
            return JSONResponse.make(view(try await call()))
        } catch {
            throw Self.failure(error)
        }
    }

    private func view(_ record: ArchiveRecord) -> ArchiveReply {
        let available = record.status == .available && !record.streams.isEmpty
        return ArchiveReply(record: record, url: available ? downloadPath(record.id, stream: nil) : nil)
    }

    /// The record for a caller without credentials (quick start): `url` is a signed download link (one hour).
    private func signedView(_ record: ArchiveRecord) -> ArchiveReply {
        var reply = view(record)
        if let url = reply.url {
            reply.url = "\(url)?\(links.query(for: record.id, now: WallClock.seconds()))"
        }
        return reply
    }

    private func downloadPath(_ id: String, stream: String?) -> String {
        let base = "/v2/project/\(authority.apiKey)/archive/\(id)/download"
        guard let stream else { return base }
        return "\(base)?stream=\(stream)"
    }

    /// The file, whole (200) or the asked range (206; 416 when unsatisfiable).
    private func download(_ id: String, stream: String?, request: Request, context: some RequestContext)
        async throws(RESTFailure) -> Response
    {
        let file: (path: String, size: Int64)
        do throws(ArchiveError) {
            file = try await service.file(of: id, stream: stream)
        } catch {
            throw Self.failure(error)
        }
        var headers: HTTPFields = [.contentType: "video/webm", .acceptRanges: "bytes"]
        let range: ClosedRange<Int64>
        let status: HTTPResponse.Status
        switch ByteRange.resolve(request.headers[.range], size: file.size) {
        case .whole:
            guard file.size > 0 else { return Response(status: .ok, headers: headers, body: .init()) }
            (range, status) = (0...(file.size - 1), .ok)
        case let .partial(part):
            (range, status) = (part, .partialContent)
            headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound)/\(file.size)"
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(file.size)"
            return Response(status: .init(code: 416), headers: headers, body: .init())
        }
        do {
            let body = try await Self.fileIO.loadFile(
                path: file.path, range: Int(range.lowerBound)...Int(range.upperBound), context: context)
            return Response(status: status, headers: headers, body: body)
        } catch {
            throw Self.failure(.storage("cannot read the archive's file"))
        }
    }

    /// An HTML page playing each of the archive's files in a `<video>` element, through signed download links.
    private func viewPage(_ record: ArchiveRecord) throws(RESTFailure) -> Response {
        var videos = ""
        if record.status == .available {
            let signed = links.query(for: record.id, now: WallClock.seconds())
            for file in record.streams where ArchiveFiles.isPlainFileName(file.streamID) {
                let source = "\(downloadPath(record.id, stream: file.streamID))&\(signed)"
                videos += """
                    <figure><video controls preload="metadata" src="\(Self.html(source))"></video>
                    <figcaption>stream \(Self.html(file.streamID))\(file.startOffset.map { ", from \($0) ms" } ?? "")</figcaption></figure>

                    """
            }
        } else {
            videos = "<p>The archive is \(record.status.rawValue); reload this page once it is available.</p>\n"
        }
        let title = record.name.isEmpty ? record.id : record.name
        let page = """
            <!doctype html>
            <html><head><meta charset="utf-8"><title>Archive \(Self.html(title))</title></head>
            <body>
            <h1>Archive \(Self.html(title))</h1>
            <p id="status">\(record.status.rawValue), \(String(seconds: record.duration)) s</p>
            \(videos)</body></html>

            """
        return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(string: page)))
    }

    private static func html(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    // MARK: Helpers

    private func handle(_ body: () async throws(RESTFailure) -> Response) async -> Response {
        do {
            return try await body()
        } catch {
            metrics?.refused(error.error.code, via: .rest)
            return error.response
        }
    }

    static func failure(_ error: ArchiveError) -> RESTFailure {
        RESTFailure(.init(code: error.status), error.protocolError)
    }

    private static func integer(_ text: String?, name: String, default value: Int) throws(RESTFailure) -> Int {
        guard let text else { return value }
        guard text.utf8.count <= 9, let number = Int(text) else {
            throw RESTFailure(.badRequest, ProtocolError(.invalidParameter, "\(name) must be an integer"))
        }
        return number
    }

    private static func decodeBody<T: Decodable>(_ type: T.Type, from request: inout Request) async throws(RESTFailure) -> T {
        guard let body = try await decodeBody(type, from: &request, emptyAllowed: false) else {
            throw RESTFailure(.badRequest, ProtocolError(.invalidParameter, "missing JSON body"))
        }
        return body
    }

    private static func decodeBody<T: Decodable>(_ type: T.Type, from request: inout Request, emptyAllowed: Bool)
        async throws(RESTFailure) -> T?
    {
        try await RESTRoutes.decodeBody(type, from: &request, emptyAllowed: emptyAllowed, limit: maxBodyBytes)
    }
}

/// An archive on REST: the record's fields plus `url`, its download path once available.
struct ArchiveReply: Encodable, Sendable {
    var record: ArchiveRecord
    var url: String?

    private enum Extra: String, CodingKey { case url }

    func encode(to encoder: any Encoder) throws {
        try record.encode(to: encoder)
        var container = encoder.container(keyedBy: Extra.self)
        try container.encodeIfPresent(url, forKey: .url)
    }
}

/// `GET …/archive`'s reply: how many archives match, and the page asked for.
struct ArchiveList: Encodable, Sendable {
    var count: Int
    var items: [ArchiveReply]
}

/// The optional body of the quick-start `POST /start/{sessionId}`.
struct QuickStartArchive: Decodable, Sendable {
    var name: String?
    var outputMode: ArchiveOutputMode?
    var hasAudio: Bool?
    var hasVideo: Bool?
    var resolution: String?
}

extension String {
    /// `value` with at most three decimals (`12.345`).
    fileprivate init(seconds value: Double) {
        let thousandths = Int64((value * 1_000).rounded())
        let fraction = String(thousandths % 1_000)
        self = "\(thousandths / 1_000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
