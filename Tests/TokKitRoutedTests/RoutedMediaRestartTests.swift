import Foundation
import Logging
import Testing
import TokKitProtocol
import TokKitTesting
@testable import TokKitServer

/// Faster failover (RoutedMedia+Restart) against two ``FakeJanus`` instances: the instance carrying a session dies,
/// and the publisher of its answered upstream is asked at once to offer again (`mediaRestart`, naming the ICE ufrag
/// of the offer that instance had answered); its new offer lands on the other instance and asks for nothing more.
/// Run inside `unshare -n` (127.0.0.1 only).
@Suite("Routed media restart on a lost instance", .serialized) struct RoutedMediaRestartTests {
    static func offer(ufrag: String) -> String {
        "v=0\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\na=ice-ufrag:\(ufrag)\r\na=ice-pwd:x\r\n"
    }

    @Test func aLostInstanceAsksItsPublishersToOfferAgainAtOnce() async throws {
        let first = try await FakeJanus.start()
        let second = try await FakeJanus.start()
        defer { first.stop(); second.stop() }
        let routing = RoutedMedia(instances: [RoutedMediaConfiguration(url: first.url, requestTimeoutMs: 3_000),
                                              RoutedMediaConfiguration(url: second.url, requestTimeoutMs: 3_000)],
                                  logger: RoutedMediaLaneTests.logger)
        let deliveries = RoutedMediaLaneTests.Deliveries()
        let reader = deliveries.start(routing)
        let runner = Task { await routing.run() }
        func restarts() -> [RoutedMediaDelivery] {
            deliveries.all.filter { if case .mediaRestart = $0 { true } else { false } }
        }

        routing.submit(RoutedMediaLaneTests.offer(1, sdp: Self.offer(ufrag: "firstUfrag")), session: "session-1",
                       from: "connection-1")
        routing.submit(.subscribe(sessionID: "session-1", streamID: "stream-1", subscriberID: "sub-1",
                                  connectionID: "connection-2"), session: "session-1")
        #expect(await eventually { deliveries.all.count >= 2 }, "answer and offer: \(deliveries.all)")
        #expect(await routing.status().placements["session-1"] == 0)
        #expect(restarts().isEmpty)

        let killed = ContinuousClock.now
        first.stop()
        let asked = await eventually(timeout: .seconds(10)) { !restarts().isEmpty }
        print("mediaRestart delivered \(ContinuousClock.now - killed) after the fake Janus was killed")
        #expect(asked, "no mediaRestart: \(deliveries.all)")
        guard case let .mediaRestart(connectionID, streamID, upstreamID, ufrag, reason)? = restarts().first else {
            return await stop(routing, runner, reader)
        }
        #expect(connectionID == "connection-1" && streamID == "stream-1" && upstreamID == "upstream-1")
        #expect(ufrag == "firstUfrag", "names the peer whose offer the lost instance answered")
        #expect(!reason.isEmpty)
        #expect(!deliveries.all.contains { if case .failure = $0 { true } else { false } }, "moved, not failed")

        // The publisher's new offer lands on the surviving instance; the subscriber is offered the new feed; no
        // further restart is asked for.
        routing.submit(RoutedMediaLaneTests.offer(1, sdp: Self.offer(ufrag: "secondUfrag")), session: "session-1",
                       from: "connection-1")
        let offersToSubscriber = await eventually(timeout: .seconds(10)) {
            deliveries.all.count(where: {
                if case let .negotiation(_, _, id, kind, _) = $0 { id == "sub-1" && kind == .offer } else { false }
            }) == 2
        }
        #expect(offersToSubscriber, "\(deliveries.all)")
        #expect(await routing.status().placements["session-1"] == 1)
        #expect(restarts().count == 1, "\(restarts())")
        await stop(routing, runner, reader)
    }

    /// The ufrag the server names: the offer's first `a=ice-ufrag`; none, empty or oversized gives nil.
    @Test func theOffersUfragIsRead() {
        #expect(RoutedMedia.iceUfrag(in: Self.offer(ufrag: "F00d")) == "F00d")
        #expect(RoutedMedia.iceUfrag(in: "v=0\r\na=ice-ufrag:abc\r\nm=audio 9 X 0\r\na=ice-ufrag:other\r\n") == "abc")
        #expect(RoutedMedia.iceUfrag(in: "v=0\na=ice-ufrag:lf\n") == "lf")
        #expect(RoutedMedia.iceUfrag(in: "v=0\r\n") == nil)
        #expect(RoutedMedia.iceUfrag(in: "a=ice-ufrag:\r\n") == nil)
        #expect(RoutedMedia.iceUfrag(in: "a=ice-ufrag:" + String(repeating: "x", count: 257)) == nil)
    }

    private func stop(_ routing: RoutedMedia, _ runner: Task<Void, Never>, _ reader: Task<Void, Never>) async {
        routing.finish()
        await runner.value
        await routing.shutdown()
        await reader.value
    }
}
