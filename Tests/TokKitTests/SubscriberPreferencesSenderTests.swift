import Synchronization
import Testing
import enum TokKitProtocol.ServerMessage

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

/// The `subscriberPreferences` retry on `limitReached` (1430, Protocol.md 6.7: too many routed messages waiting),
/// with a scripted channel: replies are given in order, the sends and the waits recorded.
@Suite struct SubscriberPreferencesRetryTests {
    /// Replies `replies` in order (the last one again when they run out) and records when each send came.
    final class ScriptedChannel: Sendable {
        private let state: Mutex<(replies: [Result<TokKitProtocol.ServerMessage.Ack, SessionError>], sends: [ContinuousClock.Instant],
                                  sleeps: [Duration])>

        init(_ replies: [Result<TokKitProtocol.ServerMessage.Ack, SessionError>]) {
            state = Mutex((replies, [], []))
        }

        var sends: [ContinuousClock.Instant] { state.withLock { $0.sends } }
        var sleeps: [Duration] { state.withLock { $0.sleeps } }

        func send() async -> Result<TokKitProtocol.ServerMessage.Ack, SessionError> {
            state.withLock { s in
                s.sends.append(.now)
                return s.replies.count > 1 ? s.replies.removeFirst() : s.replies[0]
            }
        }

        /// A sleep that only records its duration.
        func sleep(_ duration: Duration) async {
            state.withLock { $0.sleeps.append(duration) }
        }
    }

    static let ack = Result<TokKitProtocol.ServerMessage.Ack, SessionError>.success(TokKitProtocol.ServerMessage.Ack(rid: 1))
    static let limit = Result<TokKitProtocol.ServerMessage.Ack, SessionError>.failure(SessionError(code: 1430, message: "too many"))
    static let invalid = Result<TokKitProtocol.ServerMessage.Ack, SessionError>.failure(.invalidParameter("bad"))

    @Test func aLimitReachedRefusalIsRetriedOnceAfter250msAndTheRetryCanSucceed() async {
        let channel = ScriptedChannel([Self.limit, Self.ack])
        let refusal = await SubscriberPreferencesSender.request({ await channel.send() }, sleep: { await channel.sleep($0) })
        #expect(refusal == nil)
        #expect(channel.sends.count == 2)
        #expect(channel.sleeps == [.milliseconds(250)])
    }

    @Test func aSecondLimitReachedIsReported() async {
        let channel = ScriptedChannel([Self.limit, Self.limit, Self.ack])
        let refusal = await SubscriberPreferencesSender.request({ await channel.send() }, sleep: { await channel.sleep($0) })
        #expect(refusal?.code == 1430, "\(String(describing: refusal))")
        #expect(channel.sends.count == 2, "retried once only")
        #expect(channel.sleeps == [.milliseconds(250)])
    }

    @Test func anotherRefusalIsReportedWithoutRetryAndAfterARetry() async {
        let first = ScriptedChannel([Self.invalid, Self.ack])
        let refusal = await SubscriberPreferencesSender.request({ await first.send() }, sleep: { await first.sleep($0) })
        #expect(refusal?.code == 1011 && first.sends.count == 1 && first.sleeps.isEmpty)
        let second = ScriptedChannel([Self.limit, Self.invalid, Self.ack])
        let after = await SubscriberPreferencesSender.request({ await second.send() }, sleep: { await second.sleep($0) })
        #expect(after?.code == 1011 && second.sends.count == 2)
        let accepted = ScriptedChannel([Self.ack, Self.limit])
        let none = await SubscriberPreferencesSender.request({ await accepted.send() }, sleep: { await accepted.sleep($0) })
        #expect(none == nil && accepted.sends.count == 1 && accepted.sleeps.isEmpty)
    }

    /// With the real sleep: the retry goes out no sooner than 250 ms after the refused request.
    @Test func theRetryWaitsItsDelay() async {
        let channel = ScriptedChannel([Self.limit, Self.ack])
        let refusal = await SubscriberPreferencesSender.request { await channel.send() }
        #expect(refusal == nil)
        let sends = channel.sends
        #expect(sends.count == 2)
        if sends.count == 2 { #expect(sends[1] - sends[0] >= .milliseconds(250), "\(sends[1] - sends[0])") }
    }
}
