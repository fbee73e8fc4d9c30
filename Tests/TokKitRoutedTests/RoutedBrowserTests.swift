import Foundation
import Testing
import TokKit
import TokKitChromiumSupport
import TokKitJanus
import TokKitNetworkLab
import TokKitProtocol
import TokKitServer
import TokKitTesting

/// The browser client (tokkit.js) in a routed session (Protocol.md 6.7): headless Chromium in a lab host of the
/// routed lab publishes its fake camera once, to Janus, and subscribes by answering Janus's offer; a Swift client
/// decodes the browser's frames and the browser decodes the Swift client's, both through Janus.
@Suite("Browser clients in routed sessions", .serialized) struct RoutedBrowserTests {
    @Test func chromiumPublishesOnceToJanusAndSubscribesThroughIt() async throws {
        try await RoutedLab.withPages { lab in
            let janus = lab.janus
            // A Swift publisher first: the page subscribes to every stream it hears of.
            let alice = try await lab.connect()
            let swiftPublisher = Publisher(name: "swift", videoCapture: PatternCapturer(width: 320, height: 240))
            try await alice.publish(swiftPublisher)

            try await lab.withBrowser { browser, browserHost in
                let (page, recorder) = try await lab.openPage(browser)
                let published = await recorder.first(timeout: .seconds(30)) { $0.contains("\"published\"") }
                let reports = { LabPage.reports(recorder) }
                #expect(published != nil, "the page did not publish; console: \(recorder.texts.suffix(15))")
                let browserStreamID = try #require(reports().first { $0.event == "published" }?.streamID)

                // Browser → Janus → Swift: the browser's upstream carries media, a Swift subscriber decodes it.
                let bob = try await lab.connect()
                #expect(await eventually { bob.streams[StreamID(browserStreamID)] != nil })
                let renderer = CountingRenderer()
                let subscriber = Subscriber(stream: try #require(bob.streams[StreamID(browserStreamID)]),
                                            videoRender: renderer)
                try await bob.subscribe(subscriber)
                let decoded = await eventually(timeout: .seconds(30)) { renderer.frames >= 30 }
                let console = recorder.texts.suffix(10)
                #expect(decoded, "Swift decoded \(renderer.frames) browser frames; console: \(console); janus:\n\(janus.logTail(20))")
                // The browser picks its size from its bandwidth estimate: any real picture will do.
                #expect(renderer.snapshot.width > 0 && renderer.snapshot.height > 0, "\(renderer.snapshot)")

                // Swift → Janus → browser: the page answered Janus's offer and decodes the Swift pattern; its
                // selected pair ends at Janus's host, not at the Swift client.
                let seen = await eventually(timeout: .seconds(30)) {
                    reports().contains { $0.event == "stats" && ($0.frames ?? 0) >= 30 }
                }
                #expect(seen, "the page decoded too little: \(recorder.texts.suffix(10))")
                let line = reports().last { $0.event == "stats" && ($0.frames ?? 0) >= 30 }
                #expect(line?.remoteAddress == janus.configuration.mediaAddress, "\(String(describing: line))")
                #expect(line?.localAddress == browserHost.address, "\(String(describing: line))")
                #expect(!reports().contains { $0.event == "error" }, "\(recorder.texts.suffix(10))")

                // 640x480 is below the size from which Chromium keeps three simulcast layers: one encoding.
                let encodings = try await page.evaluate("""
                    (async () => {
                      const pc = [...tk.publisher.peerConnections.values()][0];
                      return [...(await pc.getStats()).values()]
                        .filter((s) => s.type === "outbound-rtp" && s.kind === "video").length;
                    })()
                    """, timeout: .seconds(10))
                #expect(encodings == "1", "outbound video streams: \(encodings)")

                // At Janus: two publishers (one upstream each, the browser's included) and two subscribers.
                let status = try #require(await lab.server.routedMediaStatus())
                #expect(status.publishers == 2 && status.subscribers == 2, "\(status)")
                await recorder.stop()
                await bob.disconnect()
            }
            await alice.disconnect()
        }
    }
}
