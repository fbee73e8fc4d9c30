import Foundation
import Logging
import Synchronization
import Testing
import TokKit
import TokKitICE
import TokKitProtocol
@testable import TokKitServer
import TokKitTesting

/// ``RoutedMedia``'s work queues against a fake Janus (``FakeJanus``) that stalls or refuses on purpose: one
/// session's slow Janus round-trips do not delay another session's, a client flooding negotiation messages is refused
/// past its bound, and an upstream Janus refuses ends its stream. Run inside `unshare -n` (127.0.0.1 only).
@Suite("Routed media queues against a fake Janus", .serialized) struct RoutedMediaLaneTests {
    static var logger: Logger {
        var logger = Logger(label: "tokkit.routed.lanes.tests")
        logger.logLevel = .error
        return logger
    }

    /// Collects ``RoutedMedia/deliveries`` in order.
    final class Deliveries: Sendable {
        private let received = Mutex<[RoutedMediaDelivery]>([])
        var all: [RoutedMediaDelivery] { received.withLock { $0 } }
        func start(_ routing: RoutedMedia) -> Task<Void, Never> {
            Task { for await delivery in routing.deliveries { received.withLock { $0.append(delivery) } } }
        }
    }

    static func offer(_ n: Int, sdp: String) -> RoutedMediaCommand {
        .publisherOffer(sessionID: "session-\(n)", streamID: "stream-\(n)", upstreamID: "upstream-\(n)",
                        connectionID: "connection-\(n)", sdp: sdp)
    }

    /// Session 1's offer stalls at Janus (no reply until its 3 s deadline); session 2's offer, submitted after it,
    /// is answered first: the two sessions' lanes do not wait for each other (one serial queue would deliver
    /// session 1's failure first).
    @Test func aSessionWhoseJanusRoundTripStallsDoesNotDelayAnother() async throws {
        let fake = try await FakeJanus.start()
        defer { fake.stop() }
        let routing = RoutedMedia(instances: [RoutedMediaConfiguration(url: fake.url, requestTimeoutMs: 3_000)],
                                  logger: Self.logger)
        let deliveries = Deliveries()
        let reader = deliveries.start(routing)
        let runner = Task { await routing.run() }

        #expect(routing.submit(Self.offer(1, sdp: "v=0 stall"), session: "session-1", from: "connection-1"))
        #expect(routing.submit(Self.offer(2, sdp: "v=0 fine"), session: "session-2", from: "connection-2"))
        let both = await eventually(timeout: .seconds(10)) { deliveries.all.count >= 3 }
        let all = deliveries.all
        #expect(both, "deliveries: \(all)")
        guard case let .negotiation(connectionID, _, subscriberID, kind, _)? = all.first else {
            Issue.record("session 2's answer is not first: \(all)")
            return await stop(routing, runner, reader)
        }
        #expect(connectionID == "connection-2" && subscriberID == "upstream-2" && kind == .answer)
        // Session 1: the stall ends at its deadline as a 1570 for its publisher, and its stream is unpublished.
        guard all.count >= 3, case let .failure(failedConnection, failedSubscriber, error) = all[1] else {
            Issue.record("no failure for session 1: \(all)")
            return await stop(routing, runner, reader)
        }
        #expect(failedConnection == "connection-1" && failedSubscriber == "upstream-1")
        #expect(error.code == .mediaRouterFailed, "\(error)")
        #expect(all[2] == .upstreamFailed(streamID: "stream-1", upstreamID: "upstream-1"))
        await stop(routing, runner, reader)
    }

    /// One connection's commands pending (its offer stalls at Janus) are bounded: past the limit its messages are
    /// refused (nothing is queued), other connections are not affected, and once the stall ends it may send again.
    @Test func aFloodingConnectionIsRefusedPastItsBound() async throws {
        let fake = try await FakeJanus.start()
        defer { fake.stop() }
        let routing = RoutedMedia(instances: [RoutedMediaConfiguration(url: fake.url, requestTimeoutMs: 1_500)],
                                  logger: Self.logger, maxPendingPerConnection: 8)
        let deliveries = Deliveries()
        let reader = deliveries.start(routing)
        let runner = Task { await routing.run() }

        #expect(routing.submit(Self.offer(1, sdp: "v=0 stall"), session: "session-1", from: "connection-1"))
        var accepted = 1
        var refused = 0
        for _ in 0..<1_000 {
            let queued = routing.submit(.publisherCandidate(streamID: "stream-1", candidate: "candidate:1 1 udp 1 198.18.0.9 9 typ host"),
                                        session: "session-1", from: "connection-1")
            if queued { accepted += 1 } else { refused += 1 }
        }
        #expect(accepted == 8 && refused == 993, "accepted \(accepted), refused \(refused)")
        // Another connection of the same session is not refused; the server's own commands never are.
        #expect(routing.submit(.publisherCandidate(streamID: "stream-1", candidate: nil), session: "session-1",
                               from: "connection-2"))
        #expect(routing.submit(.streamEnded(streamID: "stream-9", sessionID: "session-1"), session: "session-1"))
        // The stall ends at its deadline; the connection's pending work drains and it may send again.
        let drained = await eventually(timeout: .seconds(10)) {
            routing.submit(.publisherCandidate(streamID: "stream-1", candidate: nil), session: "session-1",
                           from: "connection-1")
        }
        #expect(drained, "the connection's bound is released once its commands are handled")
        await stop(routing, runner, reader)
    }

    /// The media router refusing a publisher's offer (a real client's, through a real server): the publisher
    /// reports 1570 and the stream is unpublished for everyone (`streamDestroyed`), instead of staying listed with
    /// no media behind it.
    @Test func aStreamWhoseUpstreamJanusRefusesIsUnpublished() async throws {
        try await FakeJanusServer.run(.refuseEveryOffer, requestTimeoutMs: 3_000, logger: Self.logger) { _, routed in
            let server = routed.server
            let alice = try await routed.connect()
            let bob = try await routed.connect()
            let publisher = Publisher(name: "refused", videoCapture: PatternCapturer(width: 160, height: 120))
            let failure = RoutedLab.firstFailure(publisher.events)
            try await alice.publish(publisher)
            let streamID = try #require(publisher.stream?.streamID)
            let refused = try await RoutedLab.within(.seconds(10), "publisher failure") { await failure.value }
            #expect(refused?.code == ErrorCode.mediaRouterFailed.rawValue, "\(String(describing: refused))")
            #expect("\(String(describing: refused))".contains("433"), "Janus's code in the message")
            #expect(await eventually { bob.streams[streamID] == nil && alice.streams[streamID] == nil },
                    "the stream is unpublished for everyone")
            #expect(await eventually { await server.routedMediaStatus()?.publishers == 0 })
            await alice.disconnect()
            await bob.disconnect()
        }
    }

    /// A publisher re-offering (its media path restarting) gets a new publisher handle at Janus; its subscriber,
    /// whose Janus subscription was on the old feed, follows: it gets a new offer from the media router on the same
    /// subscription, whose answer starts the new subscriber handle.
    @Test func subscribersFollowAPublisherThatOffersAgain() async throws {
        let fake = try await FakeJanus.start()
        defer { fake.stop() }
        let routing = RoutedMedia(instances: [RoutedMediaConfiguration(url: fake.url, requestTimeoutMs: 3_000)],
                                  logger: Self.logger)
        let deliveries = Deliveries()
        let reader = deliveries.start(routing)
        let runner = Task { await routing.run() }
        func offers(to subscriberID: String) -> Int {
            deliveries.all.filter {
                if case let .negotiation(_, _, id, kind, _) = $0 { id == subscriberID && kind == .offer } else { false }
            }.count
        }

        routing.submit(Self.offer(1, sdp: "v=0 first"), session: "session-1", from: "connection-1")
        routing.submit(.subscribe(sessionID: "session-1", streamID: "stream-1", subscriberID: "sub-1",
                                  connectionID: "connection-2"), session: "session-1")
        #expect(await eventually { offers(to: "sub-1") == 1 }, "\(deliveries.all)")
        routing.submit(.subscriberAnswer(subscriberID: "sub-1", sdp: "v=0 answer"), session: "session-1",
                       from: "connection-2")
        #expect(await eventually { await routing.status().subscribers == 1 })

        // The publisher offers again: a new upstream, and the subscriber is offered the new feed.
        routing.submit(Self.offer(1, sdp: "v=0 second"), session: "session-1", from: "connection-1")
        #expect(await eventually { offers(to: "sub-1") == 2 }, "no new offer for the subscriber: \(deliveries.all)")
        routing.submit(.subscriberAnswer(subscriberID: "sub-1", sdp: "v=0 answer again"), session: "session-1",
                       from: "connection-2")
        // Janus got a second subscriber join (the new feed) and a second start (the new answer).
        let joinedAndStarted = await eventually(timeout: .seconds(10)) {
            let seen = fake.seen
            return seen.count(where: { $0 == "join subscriber" }) == 2 && seen.count(where: { $0 == "start" }) == 2
        }
        #expect(joinedAndStarted, "Janus saw: \(fake.seen)")
        let status = await routing.status()
        #expect(status.publishers == 1 && status.subscribers == 1, "\(status)")
        #expect(!deliveries.all.contains { if case .failure = $0 { true } else { false } }, "\(deliveries.all)")
        await stop(routing, runner, reader)
    }

    /// A subscriber's preferences reach Janus as one `configure` of its video stream with both the simulcast
    /// `substream` and the `temporal` layer, sent again at each change (preferredFrameRate, issue 15).
    @Test func preferencesConfigureTheSubstreamAndTheTemporalLayer() async throws {
        let fake = try await FakeJanus.start()
        defer { fake.stop() }
        let (routing, deliveries, runner, reader) = await Self.startedSubscription(on: fake, offer: "v=0 fine")
        func configures() -> [String] { fake.seen.filter { $0.hasPrefix("configure stream") } }

        routing.submit(.subscriberPreferences(subscriberID: "sub-1", substream: 2, temporal: 0), session: "session-1",
                       from: "connection-2")
        routing.submit(.subscriberPreferences(subscriberID: "sub-1", substream: 1, temporal: 1), session: "session-1",
                       from: "connection-2")
        routing.submit(.subscriberPreferences(subscriberID: "sub-1", substream: 1, temporal: 2), session: "session-1",
                       from: "connection-2")
        #expect(await eventually(timeout: .seconds(10)) { configures().count == 3 }, "Janus saw: \(fake.seen)")
        #expect(configures() == ["configure stream mid=1 substream=2 temporal=0",
                                 "configure stream mid=1 substream=1 temporal=1",
                                 "configure stream mid=1 substream=1 temporal=2"])
        #expect(!deliveries.all.contains { if case .failure = $0 { true } else { false } }, "\(deliveries.all)")
        await stop(routing, runner, reader)
    }

    /// Janus switches a subscription to the simulcast layer asked for on that layer's next key frame, which the
    /// publisher may not send (Chromium drops a key frame request within 300 ms of the last one it honoured): until
    /// Janus says it forwards the layer, the server asks again every `layerSwitchWait` (each `configure` makes
    /// Janus request a key frame again), at most `maxLayerSwitchRetries` times. A publisher sending one layer is
    /// not simulcast at Janus (it never switches nor reports a layer): asked once.
    @Test(arguments: [(FakeJanus.Mode.lateLayerSwitch, true), (.noLayerSwitch, true), (.noLayerSwitch, false)])
    func aLayerJanusDidNotSwitchToIsAskedForAgain(_ mode: FakeJanus.Mode, simulcast: Bool) async throws {
        let fake = try await FakeJanus.start(mode)
        defer { fake.stop() }
        let offer = "v=0 fine\r\n" + (simulcast ? "a=ssrc-group:SIM 1 2 3\r\n" : "")
        let (routing, deliveries, runner, reader) = await Self.startedSubscription(on: fake, offer: offer)
        func configures() -> [String] { fake.seen.filter { $0.hasPrefix("configure stream") } }

        routing.submit(.subscriberPreferences(subscriberID: "sub-1", substream: 0, temporal: 2), session: "session-1",
                       from: "connection-2")
        // Switched at the third ask (late), or never: then asked 1 + maxLayerSwitchRetries times in all; once
        // without simulcast.
        let expected = !simulcast ? 1 : mode == .lateLayerSwitch ? 3 : 1 + RoutedMedia.maxLayerSwitchRetries
        let asking = RoutedMedia.layerSwitchWait * expected
        #expect(await eventually(timeout: asking + .seconds(5)) { configures().count >= expected },
                "Janus saw: \(fake.seen)")
        // No more after that: Janus switched, or the server gave up.
        try await Task.sleep(for: RoutedMedia.layerSwitchWait * 3)
        // (One more ask than that after a late switch only if Janus's report took over `layerSwitchWait` to reach
        // the server, on a very loaded machine.)
        let asked = configures()
        #expect(asked.allSatisfy { $0 == "configure stream mid=1 substream=0 temporal=2" }, "\(asked)")
        #expect(mode == .lateLayerSwitch ? (expected...expected + 1).contains(asked.count) : asked.count == expected,
                "\(asked.count) asks, \(expected) expected")
        #expect(!deliveries.all.contains { if case .failure = $0 { true } else { false } }, "\(deliveries.all)")
        await stop(routing, runner, reader)
    }

    /// Routed media on `fake` with session 1's stream published (`offer`) and subscribed to as `sub-1`, the
    /// subscription started at Janus (its offer delivered and answered, `start` seen); stop it with `stop`.
    private static func startedSubscription(on fake: FakeJanus, offer: String) async
        -> (RoutedMedia, Deliveries, Task<Void, Never>, Task<Void, Never>) {
        let routing = RoutedMedia(instances: [RoutedMediaConfiguration(url: fake.url, requestTimeoutMs: 3_000)],
                                  logger: Self.logger)
        let deliveries = Deliveries()
        let reader = deliveries.start(routing)
        let runner = Task { await routing.run() }
        routing.submit(Self.offer(1, sdp: offer), session: "session-1", from: "connection-1")
        routing.submit(.subscribe(sessionID: "session-1", streamID: "stream-1", subscriberID: "sub-1",
                                  connectionID: "connection-2"), session: "session-1")
        #expect(await eventually {
            deliveries.all.contains {
                if case let .negotiation(_, _, id, kind, _) = $0 { id == "sub-1" && kind == .offer } else { false }
            }
        }, "\(deliveries.all)")
        routing.submit(.subscriberAnswer(subscriberID: "sub-1", sdp: "v=0 answer"), session: "session-1",
                       from: "connection-2")
        #expect(await eventually { fake.seen.contains("start") }, "Janus saw: \(fake.seen)")
        return (routing, deliveries, runner, reader)
    }

    private func stop(_ routing: RoutedMedia, _ runner: Task<Void, Never>, _ reader: Task<Void, Never>) async {
        routing.finish()
        await runner.value
        await routing.shutdown()
        await reader.value
    }
}
