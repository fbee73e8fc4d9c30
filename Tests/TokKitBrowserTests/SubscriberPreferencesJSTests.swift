import Foundation
import Testing
import TokKitChromiumSupport

/// tokkit.js's Subscriber in headless Chromium with a scripted session channel (the session's `_request` replaced
/// by one answering from a list): its `subscriberPreferences` retry on `limitReached` (1430, Protocol.md 6.7) and the
/// wiring of its downlink adaptation (getStats samples → a lowered `preferredResolution` and
/// `bandwidthLimitedResolution`). The machine's decisions themselves: ``BrowserLayerAdaptationTests``.
@Suite(.timeLimit(.minutes(2))) struct BrowserSubscriberPreferencesTests {
    /// The page's prelude: a session whose requests are scripted (`replies`: codes to refuse with, "ok" to accept;
    /// the last one repeats), subscribed to a 640x480 stream; `calls` records every request with its time.
    static let scripted = """
        const TokKit = await import("/tokkit.js");
        const session = TokKit.initSession("key", "session");
        session.state = "connected";
        const calls = [];
        let replies = ["ok"];
        session._request = (message) => {
          calls.push({ t: performance.now(), ...message });
          if (message.type === "subscribe") return Promise.resolve({ subscriberId: "sub-1" });
          const reply = replies.length > 1 ? replies.shift() : replies[0];
          return reply === "ok" ? Promise.resolve({}) : Promise.reject(new TokKit.TokKitError(reply, "scripted"));
        };
        const subscriber = await session.subscribe({ streamId: "stream-1",
                                                     videoDimensions: { width: 640, height: 480 } }, null);
        const errors = [];
        subscriber.on("error", ({ error }) => errors.push(error.code ?? String(error)));
        const preferences = () => calls.filter((c) => c.type === "subscriberPreferences");
        """

    /// Evaluates `script` (an async function's call, returning a string) in a blank page (bounded: 30 s).
    static func evaluate(_ script: String) async throws -> String {
        try await BrowserPage.withBlankPage { page in try await page.page.evaluate(script, timeout: .seconds(30)) }
    }

    struct Run: Decodable {
        var sends: Int
        /// Milliseconds between the first and the second send (-1: one send).
        var gap: Double
        var errors: [Int]
    }

    @Test func aLimitReachedRefusalIsRetriedOnceAfter250msAndASecondOneIsReported() async throws {
        let text = try await Self.evaluate("""
            (async () => {
              \(Self.scripted)
              const run = async (script) => {
                replies = script;
                calls.length = 0;
                errors.length = 0;
                await subscriber.setPreferredResolution({ width: 320, height: 240 });
                const sent = preferences();
                return { sends: sent.length, gap: sent.length > 1 ? sent[1].t - sent[0].t : -1, errors: [...errors] };
              };
              return JSON.stringify([await run([1430, "ok"]), await run([1430, 1430, "ok"]), await run([1011, "ok"]),
                                     await run([1430, 1011, "ok"]), await run(["ok"])]);
            })()
            """)
        let runs = try JSONDecoder().decode([Run].self, from: Data(text.utf8))
        try #require(runs.count == 5, "\(text)")
        print("browser preferences retry: gaps \(runs.map(\.gap)) ms")
        // 1430 then accepted: two sends, at least 250 ms apart, nothing reported.
        #expect(runs[0].sends == 2 && runs[0].gap >= 250 && runs[0].errors.isEmpty, "\(runs[0])")
        // 1430 twice: retried once only, the second reported.
        #expect(runs[1].sends == 2 && runs[1].gap >= 250 && runs[1].errors == [1430], "\(runs[1])")
        // Another refusal: reported at once, no retry; after a 1430's retry too.
        #expect(runs[2].sends == 1 && runs[2].errors == [1011], "\(runs[2])")
        #expect(runs[3].sends == 2 && runs[3].errors == [1011], "\(runs[3])")
        #expect(runs[4].sends == 1 && runs[4].errors.isEmpty, "\(runs[4])")
    }

    struct Adapted: Decodable {
        var limited: String
        var sent: [String]
        var lifted: String
    }

    /// The subscriber's sampling, with a scripted `getStats`: once the media router offered (`from: ""`), a sample
    /// (a second) with 30 % of the video's packets lost lowers its layer: it sends `preferredResolution` 320x240 (the middle
    /// layer of 640x480) and reports it as `bandwidthLimitedResolution`; a preference for the small layer makes it nil.
    @Test func aRoutedSubscriberLosingPacketsAsksForTheNextSmallerLayer() async throws {
        let text = try await Self.evaluate("""
            (async () => {
              \(Self.scripted)
              // Each getStats call is one more second of the link: 100 packets, 30 of them lost after the first.
              let received = 0, lost = 0, decoded = 0, samples = 0;
              subscriber.peer.pc.getStats = async () => {
                samples += 1;
                received += samples === 1 ? 100 : 70;
                lost += samples === 1 ? 0 : 30;
                decoded += 15;
                return new Map([["v", { type: "inbound-rtp", kind: "video", packetsReceived: received,
                                        packetsLost: lost, framesDecoded: decoded }]]);
              };
              // The media router's offer (not a valid one: only its sender matters here).
              await subscriber._negotiation({ kind: "offer", payload: "v=0", from: "" });
              for (let i = 0; i < 50 && subscriber.bandwidthLimitedResolution === null; i++) {
                await new Promise((r) => setTimeout(r, 100));
              }
              const limited = JSON.stringify(subscriber.bandwidthLimitedResolution);
              await new Promise((r) => setTimeout(r, 300));
              const sent = preferences().map((c) => JSON.stringify(c.preferredResolution));
              // A preference for the small layer: the link's limit (the middle one) no longer limits anything.
              await subscriber.setPreferredResolution({ width: 160, height: 120 });
              return JSON.stringify({ limited, sent, lifted: JSON.stringify(subscriber.bandwidthLimitedResolution) });
            })()
            """)
        let adapted = try JSONDecoder().decode(Adapted.self, from: Data(text.utf8))
        #expect(adapted.limited == #"{"width":320,"height":240}"#, "\(adapted)")
        #expect(adapted.sent == [#"{"width":320,"height":240}"#], "\(adapted)")
        #expect(adapted.lifted == "null", "\(adapted)")
    }
}
