import Foundation
import Testing
@testable import TokKit
import TokKitProtocol
@testable import TokKitServer
import TokKitTesting

/// A routed stream's announced `frameRate` (`publish`) drives the temporal layer the server asks Janus for: a
/// subscriber preferring 7.5 fps of a 15 fps stream gets layers 0 and 1 (`temporal` 1, half of 15), of a stream that
/// announced nothing (taken at 30 fps) layer 0 alone (`temporal` 0, a quarter of 30). Raw protocol messages through a
/// real server, against ``FakeJanus``. Run inside `unshare -n` (127.0.0.1 only).
@Suite("Routed announced frame rate against a fake Janus", .serialized) struct RoutedAnnouncedFrameRateTests {
    /// The `configure stream` lines Janus saw for `preferredFrameRate` 7.5 of a stream announced at `frameRate`.
    func configures(announcing frameRate: Double?) async throws -> [String] {
        try await FakeJanusServer.run(requestTimeoutMs: 3_000, logger: RoutedMediaLaneTests.logger) { fake, routed in
            let alice = try await routed.connect()
            let bob = try await routed.connect()
            let published = try await alice.request(
                .publish(.init(name: "rate", videoDimensions: .init(width: 640, height: 480), frameRate: frameRate)),
                purpose: .other).get()
            let streamID = try #require(published.streamID), upstreamID = try #require(published.subscriberID)
            #expect(alice.post(.negotiation(.init(streamID: streamID, subscriberID: upstreamID, kind: .offer,
                                                  payload: "v=0 fine"))))
            #expect(await eventually { fake.seen.contains("configure") }, "Janus saw \(fake.seen)")

            #expect(await eventually { bob.streams[StreamID(streamID)] != nil })
            let subscribed = try await bob.request(.subscribe(.init(streamID: streamID)), purpose: .other).get()
            let subscriberID = try #require(subscribed.subscriberID)
            #expect(await eventually { fake.seen.contains("join subscriber") }, "Janus saw \(fake.seen)")
            #expect(bob.post(.negotiation(.init(streamID: streamID, subscriberID: subscriberID, kind: .answer,
                                                payload: "v=0 answer"))))
            #expect(await eventually { fake.seen.contains("start") }, "Janus saw \(fake.seen)")
            _ = try await bob.request(.subscriberPreferences(.init(subscriberID: subscriberID, preferredFrameRate: 7.5)),
                                      purpose: .other).get()
            let configured = await eventually(timeout: .seconds(10)) {
                fake.seen.contains { $0.hasPrefix("configure stream") }
            }
            #expect(configured, "Janus saw \(fake.seen)")
            let lines = fake.seen.filter { $0.hasPrefix("configure stream") }
            await alice.disconnect()
            await bob.disconnect()
            return lines
        }
    }

    @Test func aFifteenFpsStreamsSubscriberPreferringSevenAndAHalfGetsTemporalLayerOne() async throws {
        let lines = try await configures(announcing: 15)
        print("announced 15 fps, preferred 7.5: Janus saw \(lines)")
        #expect(lines.count == 1 && lines.allSatisfy { $0.hasSuffix("temporal=1") }, "\(lines)")
    }

    @Test func aStreamAnnouncingNoRateIsTakenAtThirtyFps() async throws {
        let lines = try await configures(announcing: nil)
        print("announced nothing, preferred 7.5: Janus saw \(lines)")
        #expect(lines.count == 1 && lines.allSatisfy { $0.hasSuffix("temporal=0") }, "\(lines)")
    }

    /// A publish announcing a rate out of 1...120 fps is refused (1011) and creates no stream.
    @Test func aPublishAnnouncingABadRateIsRefused() async throws {
        try await FakeJanusServer.run(requestTimeoutMs: 3_000, logger: RoutedMediaLaneTests.logger) { _, routed in
            let alice = try await routed.connect()
            for rate in [0, 0.5, 121, -30] {
                let result = await alice.request(.publish(.init(name: "bad", frameRate: rate)), purpose: .other)
                guard case .failure(let error) = result else {
                    Issue.record("frameRate \(rate) accepted")
                    continue
                }
                #expect(error.code == ErrorCode.invalidParameter.rawValue, "frameRate \(rate): \(error)")
            }
            #expect(alice.streams.isEmpty)
            await alice.disconnect()
        }
    }
}
