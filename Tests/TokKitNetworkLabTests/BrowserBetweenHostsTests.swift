import Foundation
import Testing
import TokKitChromiumSupport
import TokKitNetworkLab

/// Swift ↔ Chromium between lab hosts: the browser client (tokkit.js) in headless Chromium on one host, a
/// `tokkit-lab-peer` on another, the session server on a third. Each decodes the other's video and audio.
@Suite("Browser between hosts")
struct BrowserBetweenHostsTests {
    @Test("Swift and Chromium on routed hosts: host candidates, media both ways")
    func routed() async throws {
        try await NetworkLab.run { lab in
            let serverHost = try await lab.addHost("server")
            let swiftHost = try await lab.addHost("swift"), browserHost = try await lab.addHost("chromium")
            let server = try await LabSessionServer.start(lab, on: serverHost, staticDirectory: try LabPage.directory())
            try await LabBrowser.run(in: lab, on: browserHost, secureOrigins: [server.url]) { browser in
                let recorder = try await Self.open(browser, server: server)
                let peer = try await LabPeer.join(lab, on: swiftHost, server: server, name: "swift")
                let browserSaw = try await LabPage.waitForMedia(recorder)
                let swiftSaw = try await peer.waitForMedia(pattern: false)
                #expect(browserSaw.local == "host" && browserSaw.localAddress == browserHost.address,
                        "\(browserSaw)")
                #expect(browserSaw.remote == "host" && browserSaw.remoteAddress == swiftHost.address, "\(browserSaw)")
                #expect(swiftSaw.remoteAddress == browserHost.address, "\(swiftSaw.pair ?? "no pair")")
                #expect(await peer.leave() == 0)
            }
        }
    }

    @Test("Chromium with transportPolicy relay reaches a Swift peer through the lab's TURN server")
    func browserRelay() async throws {
        try await NetworkLab.run { lab in
            let serverHost = try await lab.addHost("server"), turnHost = try await lab.addHost("turn")
            let swiftHost = try await lab.addHost("swift"), browserHost = try await lab.addHost("chromium")
            let turn = try await TURNServer.start(in: lab, on: turnHost)
            let server = try await LabSessionServer.start(lab, on: serverHost, stun: [turn.stunURL],
                                                          turn: [turn.udpURL], turnSecret: turn.secret,
                                                          staticDirectory: try LabPage.directory())
            try await LabBrowser.run(in: lab, on: browserHost, secureOrigins: [server.url]) { browser in
                let recorder = try await Self.open(browser, server: server, extra: "&transportPolicy=relay")
                let peer = try await LabPeer.join(lab, on: swiftHost, server: server, name: "swift")
                let browserSaw = try await LabPage.waitForMedia(recorder)
                let swiftSaw = try await peer.waitForMedia(pattern: false)
                #expect(browserSaw.local == "relay" && browserSaw.localAddress == turn.host.address, "\(browserSaw)")
                #expect(swiftSaw.remoteAddress == turn.host.address, "\(swiftSaw.pair ?? "no pair")")
                #expect(await peer.leave() == 0)
            }
        }
    }

    @Test("the Swift host's address changes: both directions restart and media flows again, Swift <-> Chromium")
    func restartWithABrowser() async throws {
        try await NetworkLab.run { lab in
            let serverHost = try await lab.addHost("server")
            let swiftHost = try await lab.addHost("swift"), browserHost = try await lab.addHost("chromium")
            let server = try await LabSessionServer.start(lab, on: serverHost, staticDirectory: try LabPage.directory())
            try await LabBrowser.run(in: lab, on: browserHost, secureOrigins: [server.url]) { browser in
                let recorder = try await Self.open(browser, server: server)
                let peer = try await LabPeer.join(lab, on: swiftHost, server: server, name: "swift")
                let before = try await LabPage.waitForMedia(recorder)
                _ = try await peer.waitForMedia(pattern: false)

                let changed = ContinuousClock.now
                let moved = try await lab.changeAddress(of: swiftHost)
                // Swift → browser: TokKit re-offers; the page answers with a new peer connection.
                let after = try await LabPage.waitForMedia(recorder, frames: (before.frames ?? 0) + 60,
                                                          timeout: .seconds(60))
                #expect(after.remoteAddress == moved.address, "\(after)")
                // Browser → Swift: the page's publisher notices its path is gone and re-offers.
                _ = try await peer.process.waitForLine(timeout: .seconds(60), "swift: subscriberReconnected") {
                    $0.contains("\"subscriberReconnected\"")
                }
                let framesNow = peer.lastStats?.frames ?? 0
                let seen = try await peer.waitForMedia(frames: framesNow + 30, pattern: false, timeout: .seconds(30))
                #expect(seen.localAddress == moved.address, "\(seen.pair ?? "no pair")")
                print("network lab: Swift <-> Chromium media back both ways \(ContinuousClock.now - changed) after "
                      + "the address change")
                let events = LabPage.reports(recorder).map(\.event)
                #expect(events.contains("subscriberDisconnected"), "\(events.suffix(20))")
                #expect(await peer.leave() == 0)
            }
        }
    }

    /// Opens the lab page with fresh credentials and waits until it has published.
    static func open(_ browser: Chromium, server: LabSessionServer, extra: String = "") async throws
        -> ConsoleRecorder {
        let credentials = try await server.credentials()
        var query = URLComponents()
        query.queryItems = [URLQueryItem(name: "apiKey", value: credentials.apiKey),
                            URLQueryItem(name: "sessionId", value: credentials.sessionID),
                            URLQueryItem(name: "token", value: credentials.token)]
        let page = try await browser.newPage()
        let recorder = ConsoleRecorder(page)
        try await page.navigate(to: "\(server.url)/\(LabPage.name)\(query.string ?? "")\(extra)")
        let deadline = ContinuousClock.now + .seconds(30)
        while !LabPage.reports(recorder).contains(where: { $0.event == "published" }) {
            if let error = LabPage.reports(recorder).first(where: { $0.event == "error" }) {
                throw LabPage.Failure("the lab page failed: \(error.message ?? "?")")
            }
            guard ContinuousClock.now < deadline else {
                throw LabPage.Failure("the lab page did not publish within 30 s; console:\n" + recorder.texts.suffix(15)
                    .joined(separator: "\n") + "\nstderr:\n" + browser.stderrTail)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return recorder
    }
}
