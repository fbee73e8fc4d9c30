import Synchronization
import TokKitProtocol

/// Sends one subscriber's `subscriberPreferences` (Protocol.md 6.3) to the server, one request at a time and
/// waiting for each reply, so that the server ends with the latest preferences whatever the order the setters ran in.
///
/// A setter records its value in the ``Subscriber`` and calls ``schedule(session:subscriber:id:)``; while a request
/// is out, further calls only mark the preferences changed, and the running sender sends them again (reading the
/// values as they are then) when the reply arrives. A refusal with `limitReached` (1430) is retried once after
/// 250 ms; any other refusal, or a second 1430, is reported as ``SubscriberEvent/failed(_:)`` (the subscription goes
/// on). Nothing is reported when the session is no longer connected or the subscription ended.
///
/// ## Threading
/// Thread-safe: one lock-guarded ``Phase``; the sending runs in one task at a time.
final class SubscriberPreferencesSender: Sendable {
    /// Whether a sender task runs, and whether the preferences changed since it read them.
    enum Phase: Sendable, Equatable {
        case idle
        case sending(changed: Bool)
    }

    private let phase = Mutex(Phase.idle)
    private let requestCount = Atomic<Int>(0)
    /// How long a 1430 refusal waits before its one retry.
    static let retryDelay = Duration.milliseconds(250)

    /// Where the sender is (for tests).
    var currentPhase: Phase { phase.withLock { $0 } }
    /// How many requests were sent (for tests).
    var requestsSent: Int { requestCount.load(ordering: .relaxed) }

    /// Sends `subscriber`'s current preferences for subscription `id`, after any request still out.
    func schedule(session: Session, subscriber: Subscriber, id: SubscriberID) {
        let start = phase.withLock { p in
            switch p {
            case .idle:
                p = .sending(changed: false)
                return true
            case .sending:
                p = .sending(changed: true)
                return false
            }
        }
        guard start else { return }
        Task { await self.run(session: session, subscriber: subscriber, id: id) }
    }

    private func run(session: Session, subscriber: Subscriber, id: SubscriberID) async {
        // Bounded: each pass either ends or follows a change made by a setter meanwhile.
        while true {
            let refusal = await Self.request {
                requestCount.add(1, ordering: .relaxed)
                return await session.request(subscriber.preferencesMessage(id), purpose: .other)
            }
            if let refusal { Self.report(refusal, subscriber, id, session) }
            let again = phase.withLock { p in
                if p == .sending(changed: true) {
                    p = .sending(changed: false)
                    return true
                }
                p = .idle
                return false
            }
            guard again else { return }
        }
    }

    /// One request of the current preferences with the 1430 retry: `send` makes the request (reading the values as
    /// they are then); a `limitReached` (1430) refusal waits ``retryDelay`` (with `sleep`) and sends once more. Returns
    /// nil when accepted, else the refusal to report (a second 1430, or any other).
    static func request(_ send: () async -> Result<ServerMessage.Ack, SessionError>,
                        sleep: (Duration) async -> Void = { delay in try? await Task.sleep(for: delay) }) async
        -> SessionError? {
        guard case .failure(let error) = await send() else { return nil }
        guard error.code == ErrorCode.limitReached.rawValue else { return error }
        await sleep(retryDelay)
        guard case .failure(let again) = await send() else { return nil }
        return again
    }

    private static func report(_ error: SessionError, _ subscriber: Subscriber, _ id: SubscriberID, _ session: Session) {
        switch error {
        case .notConnected, .connectionDropped: return
        default: break
        }
        guard subscriber.subscriberID == id else { return }
        session.state.withLock { _ in session.emit(.failed(error), for: subscriber) }
    }
}
