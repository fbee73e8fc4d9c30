import Foundation
import Testing
@testable import TokKit
import TokKitChromiumSupport
import TokKitProtocol
@testable import TokKitServer
import TokKitTesting

/// The server refusing a routed subscriber's `subscriberPreferences` with `limitReached` (1430) for real: a
/// connection may have at most 256 routed messages waiting for the media router (Protocol.md 6.7). A publisher's
/// offer that the fake Janus never answers (``FakeJanus``: an SDP containing `stall`) holds the session's queue; the
/// subscriber's connection fills its bound with raw `subscriberPreferences`; then the client's own preference is
/// refused, retried once 250 ms later, refused again and reported (1430), and the subscription goes on. The Swift
/// `Subscriber` and tokkit.js's, in headless Chromium. (A retry that succeeds is checked with scripted replies:
/// `SubscriberPreferencesRetryTests`, `BrowserSubscriberPreferencesTests`.) Run inside `unshare -n` (127.0.0.1 only).
@Suite("Routed preferences over the server's limit", .serialized) struct RoutedPreferencesLimitTests {
    /// A routed session whose queue at the media router is held (for 20 s at most) by a raw stream's offer.
    static func held(_ fake: FakeJanus, staticDirectory: String? = nil) async throws
        -> (routed: FakeJanusServer, alice: Session, streamID: String) {
        let routed = try await FakeJanusServer.start(fake, requestTimeoutMs: 20_000,
                                                     logger: RoutedMediaLaneTests.logger,
                                                     staticDirectory: staticDirectory)
        let alice = try await routed.connect()
        let ack = try await alice.request(.publish(.init(name: "held", videoDimensions: .init(width: 640, height: 480))),
                                          purpose: .other).get()
        let streamID = try #require(ack.streamID), upstreamID = try #require(ack.subscriberID)
        #expect(alice.post(.negotiation(.init(streamID: streamID, subscriberID: upstreamID, kind: .offer,
                                              payload: "v=0 stall"))))
        #expect(await eventually { fake.seen.contains("configure") }, "Janus saw \(fake.seen)")
        return (routed, alice, streamID)
    }

    @Test func aSwiftSubscriberOverItsRoutedMessageBoundHasItsPreferencesRetriedOnceThenReported() async throws {
        let fake = try await FakeJanus.start()
        defer { fake.stop() }
        let (routed, alice, streamID) = try await Self.held(fake)
        try await routed.stopping {
            let bob = try await routed.connect()

            // Bob subscribes (his `subscribe` waits behind the offer: one of his routed messages) ...
            #expect(await eventually { bob.streams[StreamID(streamID)] != nil })
            let subscriber = Subscriber(stream: try #require(bob.streams[StreamID(streamID)]))
            let failure = RoutedLab.firstFailure(subscriber.events)
            try await bob.subscribe(subscriber)
            let subscriberID = try #require(subscriber.subscriberID)
            // ... and fills his bound with raw preferences, until the server refuses one.
            var accepted = 0
            var refusal: SessionError?
            for _ in 0..<400 where refusal == nil {
                let message = ClientMessage.subscriberPreferences(.init(subscriberID: subscriberID.rawValue,
                                                                       preferredResolution: .init(width: 320, height: 240)))
                switch await bob.request(message, purpose: .other) {
                case .success: accepted += 1
                case .failure(let error): refusal = error
                }
            }
            print("routed preferences limit (Swift): \(accepted) raw preferences accepted, then \(String(describing: refusal))")
            #expect(refusal?.code == 1430, "\(String(describing: refusal))")
            #expect(accepted == RoutedMedia.defaultMaxPendingPerConnection - 1, "the subscribe counts too: \(accepted)")

            // The subscriber's own preference: refused, retried once after 250 ms, refused again, reported.
            let asked = ContinuousClock.now
            subscriber.preferredResolution = VideoDimensions(width: 160, height: 120)
            let reported = try await RoutedLab.within(.seconds(10), "the subscriber's failure") { await failure.value }
            let took = ContinuousClock.now - asked
            print("routed preferences limit (Swift): the preference reported \(String(describing: reported)) after "
                  + "\(took), \(subscriber.preferencesSender.requestsSent) requests")
            #expect(reported?.code == 1430, "\(String(describing: reported))")
            #expect(subscriber.preferencesSender.requestsSent == 2, "one request and one retry")
            #expect(took >= .milliseconds(250), "the retry waited: \(took)")
            #expect(subscriber.subscriberID == subscriberID, "the subscription goes on")

            fake.stop()  // the held offer fails at once: nothing waits for the 20 s deadline
            await alice.disconnect()
            await bob.disconnect()
        }
    }

    struct BrowserRun: Decodable {
        var accepted: Int
        var refusal: Int
        var sends: Int
        var gap: Double
        var errors: [Int]
        var subscribed: Bool
    }

    @Test func aBrowserSubscriberOverItsRoutedMessageBoundHasItsPreferencesRetriedOnceThenReported() async throws {
        try requireLoopbackOnlyNamespace()
        let pages = FileManager.default.temporaryDirectory.appendingPathComponent("tokkit-limit-pages-\(UUID())")
        try FileManager.default.createDirectory(at: pages, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: pages) }
        try Data(#"<!doctype html><meta charset="utf-8"><title>blank</title>"#.utf8)
            .write(to: pages.appendingPathComponent("blank.html"))
        let fake = try await FakeJanus.start()
        defer { fake.stop() }
        let (routed, alice, streamID) = try await Self.held(fake, staticDirectory: pages.path)
        try await routed.stopping {
            let token = try await routed.server.issueToken(sessionID: routed.sessionID, role: .publisher,
                                                           connectionData: "").token

            let browser = try await Chromium.launch()
            let text: String
            do {
                let page = try await browser.newPage(url: "http://127.0.0.1:\(routed.port)/blank.html")
                text = try await page.evaluate("""
                    (async () => {
                      const TokKit = await import("/tokkit.js");
                      const session = TokKit.initSession("\(RoutedLab.apiKey)", "\(routed.sessionID)");
                      await session.connect("\(token)");
                      const stream = session.streams.get("\(streamID)");
                      const subscriber = await session.subscribe(stream, null);
                      // The connection's bound filled with raw preferences, until the server refuses one.
                      let accepted = 0, refusal = 0;
                      for (let i = 0; i < 400 && refusal === 0; i++) {
                        try {
                          await session._request({ type: "subscriberPreferences", subscriberId: subscriber.subscriberId,
                                                   preferredResolution: { width: 320, height: 240 },
                                                   preferredFrameRate: null });
                          accepted += 1;
                        } catch (error) { refusal = error.code; }
                      }
                      const sends = [];
                      const request = session._request.bind(session);
                      session._request = (m) => {
                        if (m.type === "subscriberPreferences") sends.push(performance.now());
                        return request(m);
                      };
                      const errors = [];
                      subscriber.on("error", ({ error }) => errors.push(error.code));
                      await subscriber.setPreferredResolution({ width: 160, height: 120 });
                      return JSON.stringify({ accepted, refusal, sends: sends.length,
                                              gap: sends.length > 1 ? sends[1] - sends[0] : -1, errors,
                                              subscribed: session._hasSubscriber(subscriber) });
                    })()
                    """, timeout: .seconds(30))
            } catch {
                await browser.close()
                throw error
            }
            await browser.close()
            let run = try JSONDecoder().decode(BrowserRun.self, from: Data(text.utf8))
            print("routed preferences limit (browser): \(run)")
            #expect(run.refusal == 1430 && run.accepted == RoutedMedia.defaultMaxPendingPerConnection - 1, "\(run)")
            #expect(run.sends == 2 && run.gap >= 250, "one request and one retry 250 ms later: \(run)")
            #expect(run.errors == [1430], "\(run)")
            #expect(run.subscribed, "the subscription goes on")

            fake.stop()
            await alice.disconnect()
        }
    }
}
