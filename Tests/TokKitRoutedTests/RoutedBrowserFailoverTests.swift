import Foundation
import Testing
import TokKit
import TokKitChromiumSupport
import TokKitJanus
import TokKitNetworkLab
import TokKitProtocol
import TokKitServer
import TokKitTesting

/// The browser client's upstream through a failover (Protocol.md 6.7 step 5): headless Chromium publishes in a
/// routed session on a server given two Janus instances; the one carrying the session is killed (SIGKILL) and the
/// page, told by `mediaRestart`, offers again at once through its restart path; a Swift subscriber decodes the
/// browser's frames again through the other instance. The time from the kill to media back is printed.
@Suite("Browser upstream through a failover", .serialized) struct RoutedBrowserFailoverTests {
    @Test func aBrowserPublisherRestartsOnMediaRestart() async throws {
        let pages = try LabPage.directory()
        defer { try? FileManager.default.removeItem(atPath: pages) }
        try await RoutedLab.runTwo(configure: { lab, configuration in
            configuration.host = lab.testAddress
            configuration.staticDirectory = pages
        }) { lab, janus, server in
            let sessionID = try await server.createSession(mediaMode: .routed).sessionID
            let origin = "http://\(lab.testAddress):\(server.port ?? 0)"
            // The subscriber joins first (an empty session expires after 300 ms here).
            let bob = try await RoutedLab.connect(server, sessionID, lab, host: lab.testAddress)
            let browserHost = try await lab.addHost("chromium")
            try await LabBrowser.run(in: lab, on: browserHost, secureOrigins: [origin]) { browser in
                let (page, recorder) = try await RoutedLab.openLabPage(browser, server: server, sessionID: sessionID,
                                                                        origin: origin)
                let published = await recorder.first(timeout: .seconds(30)) { $0.contains("\"published\"") }
                #expect(published != nil, "the page did not publish; console: \(recorder.texts.suffix(15))")
                let streamID = try #require(LabPage.reports(recorder).first { $0.event == "published" }?.streamID)
                _ = try await page.evaluate("(() => { tk.session.debug = true; return 1; })()", timeout: .seconds(10))

                #expect(await eventually { bob.streams[StreamID(streamID)] != nil })
                let renderer = CountingRenderer()
                try await bob.subscribe(Subscriber(stream: try #require(bob.streams[StreamID(streamID)]),
                                                   videoRender: renderer))
                let flowing = await eventually(timeout: .seconds(30)) { renderer.frames >= 30 }
                try #require(flowing, "Swift decoded \(renderer.frames) browser frames; console: \(recorder.texts.suffix(10))")
                let index = try #require(await server.routedMediaStatus()?.placements[sessionID])

                let framesAtKill = renderer.frames
                let killed = ContinuousClock.now
                janus[index].kill()
                let back = await eventually(timeout: .seconds(20)) { renderer.frames >= framesAtKill + 10 }
                let elapsed = ContinuousClock.now - killed
                print("browser failover: 10 frames decoded again \(elapsed) after the kill")
                #expect(back, "media never came back: \(renderer.frames) frames, \(framesAtKill) at the kill; console: \(recorder.texts.suffix(15))")
                #expect(recorder.texts.contains { $0.contains("the media router asks to restart") },
                        "the page restarted on mediaRestart: \(recorder.texts.suffix(15))")
                #expect(await server.routedMediaStatus()?.placements[sessionID] == 1 - index)
                #expect(!LabPage.reports(recorder).contains { $0.event == "error" }, "\(recorder.texts.suffix(10))")
                await recorder.stop()
                await bob.disconnect()
            }
        }
    }
}
