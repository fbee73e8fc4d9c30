import Foundation
import TokKitChromiumSupport
import TokKitNetworkLab
import TokKitProtocol
import TokKitServer

extension RoutedLab {
    /// Opens the lab page (``LabPage``, served by `server` at `origin`) in a new tab of `browser`, joined to
    /// `sessionID` with a fresh token of `role`; `query` adds the page's options (`publish=0`, `interval`). Returns
    /// the recorder of its console, where the page's `TK` report lines arrive.
    static func openPage(_ browser: Chromium, server: TokKitServer, sessionID: String, origin: String,
                         role: Role = .publisher, query extra: [URLQueryItem] = []) async throws -> ConsoleRecorder {
        try await openLabPage(browser, server: server, sessionID: sessionID, origin: origin, role: role,
                              query: extra).recorder
    }

    /// Like ``openPage(_:server:sessionID:origin:role:query:)``, also returning the page, for tests that drive it
    /// through `window.tk` (``LabPage``).
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
