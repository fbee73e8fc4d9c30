import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import TokKitProtocol
@testable import TokKitServer

/// The browser client's routes: the page and the module with their content types, from the router alone and
/// from a live in-process server; the development credentials route.
@Suite(.timeLimit(.minutes(1))) struct BrowserClientTests {
    private static let authority = TokenAuthority(apiKey: "k", apiSecret: "secret-0123456789abcdef")

    /// The browser routes on a plain router, with one quick-start session (returned) and one an admin created.
    private static func application(quickStart: Bool = true) async throws
        -> (app: some ApplicationProtocol, sessionID: String, adminSessionID: String)
    {
        let configuration = ServerConfiguration(apiKey: "k", apiSecret: "secret-0123456789abcdef")
        let registry = SessionRegistry(authority: Self.authority, configuration: configuration, logger: Logger(label: "test"))
        let session = try await registry.room("test-room")
        let adminSession = try await registry.createSession(mediaMode: .relayed, archiveMode: .manual)
        let router = Router()
        BrowserClient(registry: registry, authority: Self.authority, quickStart: quickStart).register(on: router)
        return (Application(router: router), session.sessionID, adminSession.sessionID)
    }

    @Test func servesThePageAndTheModuleWithTheirContentTypes() async throws {
        let (app, _, _) = try await Self.application()
        try await app.test(.router) { client in
            for path in ["/", "/index.html"] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                    #expect(Array(response.body.readableBytesView) == PackageResources.index_html)
                }
            }
            try await client.execute(uri: "/tokkit.js", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                #expect(Array(response.body.readableBytesView) == PackageResources.tokkit_js)
                #expect(String(decoding: response.body.readableBytesView, as: UTF8.self).contains("export function initSession("))
            }
            try await client.execute(uri: "/tokkit.jsx", method: .get) { #expect($0.status == .notFound) }
        }
    }

    @Test func thePageImportsTheServedModule() {
        let page = String(decoding: PackageResources.index_html, as: UTF8.self)
        #expect(page.contains(#"import * as TokKit from "./tokkit.js";"#))
    }

    /// Issue 17, item 6: the route gave a publisher token for any existing session; now only for one created through
    /// quick start (an admin's session is 404 / 1005, as an unknown one).
    @Test func credentialsRouteIssuesATokenForAQuickStartSessionOnly() async throws {
        let (app, sessionID, adminSessionID) = try await Self.application()
        try await app.test(.router) { client in
            try await client.execute(uri: "/credentials/\(sessionID)", method: .get) { response in
                #expect(response.status == .ok)
                let credentials = try WireCodec.decode(SessionCredentials.self, from: Array(response.body.readableBytesView))
                #expect(credentials.apiKey == "k" && credentials.sessionID == sessionID)
                let claims = try Self.authority.verify(credentials.token, now: WallClock.seconds())
                #expect(claims.sessionID == sessionID && claims.role == .publisher)
            }
            for other in ["no-such-session", adminSessionID] {
                try await client.execute(uri: "/credentials/\(other)", method: .get) { response in
                    #expect(response.status == .notFound)
                    let error = try WireCodec.decode(RestError.self, from: Array(response.body.readableBytesView))
                    #expect(error.code == .invalidSessionID)
                }
            }
        }
    }

    @Test func credentialsRouteIsOffWithoutQuickStart() async throws {
        let (app, sessionID, _) = try await Self.application(quickStart: false)
        try await app.test(.router) { client in
            try await client.execute(uri: "/credentials/\(sessionID)", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/tokkit.js", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test func liveServerServesTheClientOverHTTP() async throws {
        let server = try await BrowserTestServer.start()
        defer { Task { await server.stop() } }
        try await TestClient.withClient(host: "127.0.0.1", port: server.port) { client in
            for (path, type) in [("/", "text/html; charset=utf-8"), ("/tokkit.js", "text/javascript; charset=utf-8"),
                                 ("/echo.html", "text/html")] {
                let response = try await client.execute(.init(path, method: .get, authority: "127.0.0.1"))
                #expect(response.status == .ok, "\(path)")
                #expect(response.headers[.contentType]?.hasPrefix(type) == true, "\(path): \(response.headers)")
                #expect((response.body?.readableBytes ?? 0) > 500, "\(path)")
            }
        }
    }
}
