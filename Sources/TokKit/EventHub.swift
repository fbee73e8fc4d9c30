import Dispatch
import Synchronization

/// Fans a session's events out to every ``Session/events`` stream and to the delegates, in one total order.
///
/// `emit` holds one lock while it yields the event to every stream and enqueues the delegate work on the
/// delegate queue, so two events emitted from different threads reach streams and delegates in the same order.
/// Each stream buffers at most `bufferLimit` events (the newest are kept) for a consumer that falls behind.
final class EventHub: Sendable {
    private struct State {
        var nextId: UInt64 = 0
        var continuations: [UInt64: AsyncStream<SessionEvent>.Continuation] = [:]
        var queue: DispatchQueue
        var finished = false
    }

    private let state: Mutex<State>
    let bufferLimit: Int

    init(queue: DispatchQueue, bufferLimit: Int) {
        state = Mutex(State(queue: queue))
        self.bufferLimit = bufferLimit
    }

    var queue: DispatchQueue {
        get { state.withLock { $0.queue } }
        set { state.withLock { $0.queue = newValue } }
    }

    /// A new stream that receives every event emitted from now on.
    func makeStream() -> AsyncStream<SessionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: SessionEvent.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        let id: UInt64? = state.withLock { s in
            guard !s.finished else { return nil }
            let id = s.nextId
            s.nextId += 1
            s.continuations[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Yields `event` (if any) to every stream and schedules `delegateWork` on the delegate queue, atomically
    /// with respect to other `emit` calls.
    func emit(_ event: SessionEvent?, delegateWork: (@Sendable () -> Void)?) {
        state.withLock { s in
            if let event {
                for c in s.continuations.values { c.yield(event) }
            }
            if let delegateWork { s.queue.async(execute: delegateWork) }
        }
    }

    /// Yields a publisher's or subscriber's `event` to its `streams` and schedules `delegateWork` on the delegate
    /// queue, in the same total order as the session's own events. `finishing` ends the streams after the event.
    func emit<Event>(_ event: Event, to streams: EventStreams<Event>, finishing: Bool = false,
                     delegateWork: @escaping @Sendable () -> Void) {
        state.withLock { s in
            streams.yield(event)
            if finishing { streams.finish() }
            s.queue.async(execute: delegateWork)
        }
    }

    /// Number of live event streams (for tests and leak checks).
    var streamCount: Int { state.withLock { $0.continuations.count } }

    /// Ends every stream; later `makeStream` calls return finished streams.
    func finish() {
        let all = state.withLock { s in
            s.finished = true
            defer { s.continuations.removeAll() }
            return Array(s.continuations.values)
        }
        for c in all { c.finish() }
    }
}
