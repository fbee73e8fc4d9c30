import Dispatch
import Synchronization

/// Fans a session's events out to every ``Session/events`` stream and to the delegates, in one total order.
///
/// `emit` holds one lock while it yields the event to every stream and enqueues the delegate work on the
/// delegate queue, so two events emitted from different threads reach streams and delegates in the same order.
/// Publisher and subscriber events go through the same lock (``emit(_:to:finishing:delegateWork:)``), so they keep
/// their place among the session's. Each stream buffers at most `bufferLimit` events (the newest are kept) for a
/// consumer that falls behind.
final class EventHub: Sendable {
    private let streams: EventStreams<SessionEvent>
    /// The delegate queue; its lock is the one every emit holds.
    private let delegateQueue: Mutex<DispatchQueue>

    init(queue: DispatchQueue, bufferLimit: Int) {
        streams = EventStreams(bufferLimit: bufferLimit)
        delegateQueue = Mutex(queue)
    }

    var bufferLimit: Int { streams.bufferLimit }

    var queue: DispatchQueue {
        get { delegateQueue.withLock { $0 } }
        set { delegateQueue.withLock { $0 = newValue } }
    }

    /// A new stream that receives every event emitted from now on.
    func makeStream() -> AsyncStream<SessionEvent> { streams.makeStream() }

    /// Yields `event` (if any) to every stream and schedules `delegateWork` on the delegate queue, atomically
    /// with respect to other `emit` calls.
    func emit(_ event: SessionEvent?, delegateWork: (@Sendable () -> Void)?) {
        delegateQueue.withLock { queue in
            if let event { streams.yield(event) }
            if let delegateWork { queue.async(execute: delegateWork) }
        }
    }

    /// Yields a publisher's or subscriber's `event` to its `streams` and schedules `delegateWork` on the delegate
    /// queue, in the same total order as the session's own events. `finishing` ends the streams after the event.
    func emit<Event>(_ event: Event, to streams: EventStreams<Event>, finishing: Bool = false,
                     delegateWork: @escaping @Sendable () -> Void) {
        delegateQueue.withLock { queue in
            streams.yield(event)
            if finishing { streams.finish() }
            queue.async(execute: delegateWork)
        }
    }

    /// Number of live event streams (for tests and leak checks).
    var streamCount: Int { streams.count }

    /// Ends every stream; later `makeStream` calls return finished streams.
    func finish() { streams.finish() }
}
