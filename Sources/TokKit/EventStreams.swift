import Synchronization

/// The `AsyncStream`s of one event source (a ``Publisher``'s or a ``Subscriber``'s `events`): every stream made
/// gets every event yielded from then on, buffering at most `bufferLimit` (the newest are kept) for a consumer
/// that falls behind. ``finish()`` ends them all, and streams made afterwards start finished.
///
/// Ordering with the delegate is the caller's job: ``EventHub/emit(_:to:finishing:delegateWork:)`` yields under the
/// session's event lock.
final class EventStreams<Event: Sendable>: Sendable {
    private struct State {
        var nextId: UInt64 = 0
        var continuations: [UInt64: AsyncStream<Event>.Continuation] = [:]
        var finished = false
    }

    private let state = Mutex(State())
    let bufferLimit: Int

    init(bufferLimit: Int = 256) { self.bufferLimit = bufferLimit }

    /// A new stream receiving every event yielded from now on.
    func makeStream() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        let id: UInt64? = state.withLock { s in
            guard !s.finished else { return nil }
            defer { s.nextId += 1 }
            s.continuations[s.nextId] = continuation
            return s.nextId
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

    func yield(_ event: Event) {
        state.withLock { s in
            for c in s.continuations.values { c.yield(event) }
        }
    }

    /// Ends every stream; later ``makeStream()`` calls return finished streams.
    func finish() {
        let all = state.withLock { s in
            s.finished = true
            defer { s.continuations.removeAll() }
            return Array(s.continuations.values)
        }
        for c in all { c.finish() }
    }

    /// Live streams (for tests and leak checks).
    var count: Int { state.withLock { $0.continuations.count } }
}
