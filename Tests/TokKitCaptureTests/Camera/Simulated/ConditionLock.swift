#if canImport(Glibc)
import Glibc
#endif
import TokKitMedia

/// A mutex with a condition variable timed on `CLOCK_MONOTONIC`, for the simulated driver's blocking calls
/// (`poll`, blocking `DQBUF`). Any thread; ``wait(until:)`` only while holding the lock.
final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits (releasing the lock meanwhile) until woken or until the monotonic clock reaches `deadline`.
    func wait(until deadline: Duration) {
        let ns = max(0, deadline.nanoseconds)
        var ts = timespec(tv_sec: Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000))
        _ = pthread_cond_timedwait(condition, mutex, &ts)
    }

    /// Wakes every waiter.
    func broadcast() { pthread_cond_broadcast(condition) }
}
