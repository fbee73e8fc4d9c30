import Dispatch
import Synchronization
import TokKitMedia

/// A data-plane thread's timed wait (a frame's playout time, a paced packet) that another thread can end for good
/// with ``interrupt()`` (a pipeline's `close()`, so joining the thread never waits out the sleep).
final class InterruptibleSleep: Sendable {
    private let wake = DispatchSemaphore(value: 0)
    private let interrupted = Atomic<Bool>(false)

    /// Sleeps until `time` (``MonotonicClock``); false when interrupted, before or during the wait.
    func sleep(until time: Duration) -> Bool {
        while !interrupted.load(ordering: .acquiring) {
            let remaining = time - MonotonicClock.now()
            guard remaining > .zero else { return true }
            _ = wake.wait(timeout: .now() + .nanoseconds(Int(remaining.nanoseconds)))
        }
        return false
    }

    /// Ends the current sleep and every later one at once.
    func interrupt() {
        interrupted.store(true, ordering: .releasing)
        wake.signal()
    }
}
