import Testing
import TokKitProtocol
import TokKitTesting

@testable import TokKit

extension SubscriberEvent {
    /// The name ``SubscriberRecorder`` gives the same delegate call.
    var name: String {
        switch self {
        case .connected: "connected"
        case .disconnected: "disconnected"
        case .failed(let error): "failed(\(error.code))"
        case .reconnecting: "reconnecting"
        case .reconnected: "reconnected"
        case .statisticsUpdated: "statisticsUpdated"
        case .videoDisabled(let reason): "videoDisabled(\(reason))"
        case .videoEnabled(let reason): "videoEnabled(\(reason))"
        }
    }
}

extension LiveServer {
    /// `subscriber.events`: the delegate's events as a stream, through the real server (the order of a whole
    /// subscription is checked in `SessionPublishingTests.subscriberHearsVideoToggles`).
    @Suite struct SubscriberEventTests {
        /// Refused before the server was asked (the role may not subscribe): the subscriber is not used up, its
        /// stream goes on, and it subscribes in another session.
        @Test func aSubscriptionRefusedByTheRoleIsAFailedEventAndTheSubscriberStaysUsable() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, _) = try await server.connected()
            let publisher = Publisher(name: "p")
            try await a.publish(publisher)
            let streamID = try #require(publisher.stream?.streamID)
            let (po, _) = try await server.connected(role: .publisherOnly)
            let (b, _) = try await server.connected()
            #expect(await eventually { po.streams[streamID] != nil && b.streams[streamID] != nil })
            let subscriber = Subscriber(stream: po.streams[streamID]!)
            let events = StreamRecorder(subscriber.events, where: { !$0.isStatistics })
            await #expect(throws: SessionError.self) { try await po.subscribe(subscriber) }
            #expect(await eventually { events.all == [.failed(.unableToSubscribe("the token's role may not subscribe"))] },
                    "\(events.all)")
            #expect(!events.ended)
            try await b.subscribe(subscriber)
            #expect(await eventually { events.all.last == .connected }, "\(events.all)")
            for s in [a, po, b] { await s.disconnect() }
            #expect(await eventually { events.ended })
        }
    }
}
