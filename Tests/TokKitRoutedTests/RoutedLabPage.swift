import Foundation
import TokKit
import TokKitChromiumSupport
import TokKitJanus
import TokKitNetworkLab
import TokKitProtocol
import TokKitServer

/// A routed lab for the browser client: Janus and the session server (``RoutedLab/run(sessionTimeout:configure:_:)``),
/// the server listening on the lab's test address and serving the lab page (``LabPage``) and tokkit.js, one routed
/// session, and headless Chromium on lab hosts of their own (``withBrowser(_:_:)``) opening the page
/// (``openPage(_:role:query:)``). ``RoutedLab/withPages(_:)`` sets it up and removes it, whatever happens.
struct RoutedPageLab {
    let lab: NetworkLab
    let janus: JanusProcess
    let server: TokKitServer
    /// The routed session every client here joins.
    let sessionID: String
    /// The server as the browsers reach it (the page and tokkit.js come from there): `http://ADDRESS:PORT`.
    let origin: String

    /// A Swift client connected to the session through the lab's test address.
    func connect(role: Role = .publisher) async throws -> Session {
        try await RoutedLab.connect(server, sessionID, lab, host: lab.testAddress, role: role)
    }

    /// Launches Chromium in a new lab host named `name` (the server's origin counts as secure: camera and
    /// microphone allowed), runs `body` with it and its host, and closes the browser whether `body` returned or threw.
    func withBrowser<T: Sendable>(_ name: String = "chromium",
                                  _ body: (Chromium, LabHost) async throws -> T) async throws -> T {
        let host = try await lab.addHost(name)
        return try await LabBrowser.run(in: lab, on: host, secureOrigins: [origin]) { browser in
            try await body(browser, host)
        }
    }

    /// Opens the lab page in a new tab of `browser`, joined to the session with a fresh token of `role`; `query` adds
    /// the page's options (`publish=0`, `interval`, `width`, ...). Returns the page (driven through `window.tk`) and
    /// the recorder of its console, where the page's `TK` report lines arrive.
    func openPage(_ browser: Chromium, role: Role = .publisher, query extra: [URLQueryItem] = []) async throws
        -> (page: ChromiumPage, recorder: ConsoleRecorder) {
        try await RoutedLab.openLabPage(browser, server: server, sessionID: sessionID, origin: origin, role: role,
                                        query: extra)
    }
}

extension RoutedLab {
    /// Runs `body` in a ``RoutedPageLab``: the lab page in a temporary static directory, Janus, the server on the
    /// lab's test address, a routed session. Everything is stopped and removed afterwards.
    static func withPages(_ body: (RoutedPageLab) async throws -> Void) async throws {
        let pages = try LabPage.directory()
        defer { try? FileManager.default.removeItem(atPath: pages) }
        try await run(configure: { lab, configuration in
            // Reachable from the browsers' lab hosts; the page and tokkit.js come from this server.
            configuration.host = lab.testAddress
            configuration.staticDirectory = pages
        }) { lab, janus, server in
            let sessionID = try await server.createSession(mediaMode: .routed).sessionID
            try await body(RoutedPageLab(lab: lab, janus: janus, server: server, sessionID: sessionID,
                                         origin: "http://\(lab.testAddress):\(server.port ?? 0)"))
        }
    }

    /// Opens the lab page (``LabPage``, served by `server` at `origin`) in a new tab of `browser`, joined to
    /// `sessionID` with a fresh token of `role`; `query` adds the page's options. For labs other than
    /// ``RoutedPageLab`` (two Janus instances: ``runTwo(configure:_:)``).
    static func openLabPage(_ browser: Chromium, server: TokKitServer, sessionID: String, origin: String,
                            role: Role = .publisher, query extra: [URLQueryItem] = []) async throws
        -> (page: ChromiumPage, recorder: ConsoleRecorder) {
        let token = try await server.issueToken(sessionID: sessionID, role: role, connectionData: "")
        var query = URLComponents()
        query.queryItems = [URLQueryItem(name: "apiKey", value: apiKey),
                            URLQueryItem(name: "sessionId", value: sessionID),
                            URLQueryItem(name: "token", value: token.token)] + extra
        let page = try await browser.newPage()
        let recorder = ConsoleRecorder(page)
        try await page.navigate(to: "\(origin)/\(LabPage.name)\(query.string ?? "")")
        return (page, recorder)
    }
}
