import Synchronization

/// The end of one Janus session, signalled once by its ``JanusConnection`` (destroyed, timed out by Janus, or the
/// connection closed) and awaited by any number of tasks (``JanusSession/ended()``).
///
/// Threading: any method from any thread; waiters are resumed outside the lock.
final class JanusSessionEnd: Sendable {
    private struct State {
        var reason: JanusError?
        var waiters: [CheckedContinuation<JanusError, Never>] = []
    }
    private let state = Mutex(State())

    /// Records `reason` (the first one wins) and resumes every waiter.
    func signal(_ reason: JanusError) {
        let waiters = state.withLock { s -> [CheckedContinuation<JanusError, Never>] in
            guard s.reason == nil else { return [] }
            s.reason = reason
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume(returning: reason) }
    }

    /// Why it ended, once it has.
    var reason: JanusError? { state.withLock { $0.reason } }

    /// Waits for ``signal(_:)`` (returns at once if it came already).
    func wait() async -> JanusError {
        await withCheckedContinuation { (k: CheckedContinuation<JanusError, Never>) in
            let now = state.withLock { s -> JanusError? in
                if let reason = s.reason { return reason }
                s.waiters.append(k)
                return nil
            }
            if let now { k.resume(returning: now) }
        }
    }
}
