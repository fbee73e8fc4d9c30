import Testing

@_spi(Testing) @testable import TokKit
import TokKitTesting

extension LiveServer {
    /// `Subscriber.preferredResolution` / `preferredFrameRate` through the real server: each request waits for its
    /// reply, a refusal reaches the delegate, and setters in quick succession leave the latest value.
    @Suite struct SubscriberPreferencesSenderTests {
        /// A publisher on one connection, a subscriber (signaling only) to it on another.
        static func subscribed(_ server: TestServer, preferred: VideoDimensions? = nil)
            async throws -> (Session, Session, Subscriber, SubscriberRecorder)
        {
            let (a, _) = try await server.connected()
            let (b, _) = try await server.connected()
            let publisher = Publisher(name: "p")
            try await a.publish(publisher)
            let stream = try #require(publisher.stream)
            #expect(await eventually { b.streams[stream.streamID] != nil })
            let recorder = SubscriberRecorder()
            let subscriber = Subscriber(stream: try #require(b.streams[stream.streamID]), delegate: recorder)
            subscriber.preferredResolution = preferred
            try await b.subscribe(subscriber)
            return (a, b, subscriber, recorder)
        }

        @Test func aRefusedPreferenceIsReportedAndTheSubscriptionGoesOn() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, b, subscriber, recorder) = try await Self.subscribed(server)
            _ = (a, b)
            subscriber.preferredResolution = VideoDimensions(width: 0, height: 0)
            #expect(await eventually { recorder.errors.count == 1 })
            #expect(recorder.errors.first?.code == 1011, "\(recorder.errors)")
            #expect(subscriber.subscriberID != nil)
            // A valid value afterwards is accepted: no new failure once the sender is idle.
            subscriber.preferredResolution = VideoDimensions(width: 320, height: 180)
            #expect(await eventually { subscriber.preferencesSender.currentPhase == .idle })
            #expect(recorder.errors.count == 1)
        }

        @Test func aPreferenceSetBeforeTheServerAcceptedIsSentAndItsRefusalReported() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, b, _, recorder) = try await Self.subscribed(server, preferred: VideoDimensions(width: -4, height: 2))
            _ = (a, b)
            #expect(await eventually { recorder.errors.count == 1 })
            #expect(recorder.errors.first?.code == 1011, "\(recorder.errors)")
        }

        /// Many setters from several tasks at once: the requests go out one at a time (coalesced while one is out),
        /// none is refused, and the sender settles. (Relayed: the server keeps no preference to read back, so which
        /// value it saw last is not checked here.)
        @Test func settersInQuickSuccessionSettleWithoutRefusals() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, b, subscriber, recorder) = try await Self.subscribed(server)
            _ = (a, b)
            await withTaskGroup(of: Void.self) { group in
                for t in 0..<4 {
                    group.addTask {
                        for i in 1...50 {
                            subscriber.preferredResolution = VideoDimensions(width: 16 * (i + t), height: 16 * i)
                            subscriber.preferredFrameRate = Double(i)
                        }
                    }
                }
            }
            subscriber.preferredResolution = VideoDimensions(width: 320, height: 180)
            #expect(await eventually { subscriber.preferencesSender.currentPhase == .idle })
            #expect(recorder.errors.isEmpty, "\(recorder.errors)")
            // 401 values set; a request per value would be 401.
            let sent = subscriber.preferencesSender.requestsSent
            print("preferences: 401 values set, \(sent) requests sent")
            #expect(sent >= 1 && sent < 401)
            #expect(subscriber.preferredResolution == VideoDimensions(width: 320, height: 180))
        }
    }
}
