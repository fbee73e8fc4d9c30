import Foundation
import Logging
import Testing
import TokKitTesting
@testable import TokKitServer

/// Force mute at Janus (RoutedMedia+Moderation) against ``FakeJanus``: a `forceMute` that arrives before the
/// publisher's first offer is applied (VideoRoom `moderate`) once Janus answers that offer; one lifted before the
/// offer is not. Run inside `unshare -n` (127.0.0.1 only).
@Suite("Routed force mute before the first offer", .serialized) struct RoutedEarlyForceMuteTests {
    static let audioOffer = "v=0\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\na=ice-ufrag:abcd\r\n"

    @Test func aMuteBeforeTheFirstOfferIsAppliedAtJanusOnceThePublisherHandleExists() async throws {
        let fake = try await FakeJanus.start()
        defer { fake.stop() }
        let routing = RoutedMedia(instances: [RoutedMediaConfiguration(url: fake.url, requestTimeoutMs: 3_000)],
                                  logger: RoutedMediaLaneTests.logger)
        let deliveries = RoutedMediaLaneTests.Deliveries()
        let reader = deliveries.start(routing)
        let runner = Task { await routing.run() }

        // The moderator's mute comes first: no upstream yet, nothing reaches Janus.
        routing.submit(.moderateAudio(streamID: "stream-1", mute: true), session: "session-1")
        // Stream 2 is muted and unmuted before its offer: nothing is applied for it.
        routing.submit(.moderateAudio(streamID: "stream-2", mute: true), session: "session-2")
        routing.submit(.moderateAudio(streamID: "stream-2", mute: false), session: "session-2")
        try await Task.sleep(for: .milliseconds(300))
        #expect(!fake.seen.contains { $0.hasPrefix("moderate") }, "\(fake.seen)")

        routing.submit(RoutedMediaLaneTests.offer(1, sdp: Self.audioOffer), session: "session-1", from: "connection-1")
        let muted = await eventually(timeout: .seconds(10)) { fake.seen.contains("moderate mute 0") }
        #expect(muted, "Janus saw: \(fake.seen)")
        // After the answer (configure), never before.
        let seen = fake.seen
        if let configure = seen.firstIndex(of: "configure"), let moderate = seen.firstIndex(of: "moderate mute 0") {
            #expect(configure < moderate, "\(seen)")
        }
        routing.submit(RoutedMediaLaneTests.offer(2, sdp: Self.audioOffer), session: "session-2", from: "connection-2")
        #expect(await eventually(timeout: .seconds(10)) { fake.seen.count(where: { $0 == "configure" }) == 2 })
        try await Task.sleep(for: .milliseconds(300))
        #expect(fake.seen.count(where: { $0.hasPrefix("moderate") }) == 1, "only stream 1 muted: \(fake.seen)")
        #expect(!deliveries.all.contains { if case .failure = $0 { true } else { false } }, "\(deliveries.all)")

        routing.finish()
        await runner.value
        await routing.shutdown()
        await reader.value
    }
}
