import Foundation
import Logging
import Testing
import TokKitProtocol
import TokKitTesting
@testable import TokKitServer

/// A routed session's room lives as long as its streams (RoutedMedia, `streamEnded`), against ``FakeJanus``: the
/// session's last stream ending destroys its room and frees its placement; a later publish in the same session
/// places it again and creates a new room. Run inside `unshare -n` (127.0.0.1 only).
@Suite("Routed rooms end with their last stream", .serialized) struct RoutedMediaRoomLifetimeTests {
    @Test func theLastStreamEndingDestroysTheRoomAndALaterPublishMakesANewOne() async throws {
        let fake = try await FakeJanus.start()
        defer { fake.stop() }
        let routing = RoutedMedia(instances: [RoutedMediaConfiguration(url: fake.url, requestTimeoutMs: 3_000)],
                                  logger: RoutedMediaLaneTests.logger)
        let deliveries = RoutedMediaLaneTests.Deliveries()
        let reader = deliveries.start(routing)
        let runner = Task { await routing.run() }
        func answers() -> Int {
            deliveries.all.count(where: { if case .negotiation(_, _, _, .answer, _) = $0 { true } else { false } })
        }

        // Two streams in session 1 (one room), a subscription to the first.
        routing.submit(.publisherOffer(sessionID: "session-1", streamID: "stream-1", upstreamID: "upstream-1",
                                       connectionID: "connection-1", sdp: "v=0 one"), session: "session-1")
        routing.submit(.publisherOffer(sessionID: "session-1", streamID: "stream-2", upstreamID: "upstream-2",
                                       connectionID: "connection-2", sdp: "v=0 two"), session: "session-1")
        routing.submit(.subscribe(sessionID: "session-1", streamID: "stream-1", subscriberID: "sub-1",
                                  connectionID: "connection-3"), session: "session-1")
        #expect(await eventually { answers() == 2 }, "\(deliveries.all)")
        let room = try #require(await routing.status().rooms["session-1"])
        #expect(fake.seen.count(where: { $0 == "create" }) == 1)

        // One stream ends: the other keeps the room.
        routing.submit(.streamEnded(streamID: "stream-1", sessionID: "session-1"), session: "session-1")
        #expect(await eventually {
            let status = await routing.status()
            return status.publishers == 1 && status.subscribers == 0
        })
        try await Task.sleep(for: .milliseconds(200))
        #expect(await routing.status().rooms["session-1"] == room)
        #expect(!fake.seen.contains("destroy"), "\(fake.seen)")

        // The last one ends: the room is destroyed at Janus and forgotten; the session is no longer placed.
        routing.submit(.streamEnded(streamID: "stream-2", sessionID: "session-1"), session: "session-1")
        let destroyed = await eventually(timeout: .seconds(10)) { fake.seen.contains("destroy") }
        #expect(destroyed, "Janus saw: \(fake.seen)")
        let status = await routing.status()
        #expect(status.rooms.isEmpty && status.placements.isEmpty && status.publishers == 0, "\(status)")

        // A later publish in the same session: a new room.
        routing.submit(.publisherOffer(sessionID: "session-1", streamID: "stream-3", upstreamID: "upstream-3",
                                       connectionID: "connection-1", sdp: "v=0 three"), session: "session-1")
        #expect(await eventually { answers() == 3 }, "\(deliveries.all)")
        let newRoom = await routing.status().rooms["session-1"]
        #expect(newRoom != nil && newRoom != room, "a new room: \(String(describing: newRoom)), old \(room)")
        #expect(fake.seen.count(where: { $0 == "create" }) == 2, "\(fake.seen)")
        #expect(!deliveries.all.contains { if case .failure = $0 { true } else { false } }, "\(deliveries.all)")

        routing.finish()
        await runner.value
        await routing.shutdown()
        await reader.value
    }
}
