import Dispatch
import Synchronization

/// A named thread calling `tick` at a fixed rate on an absolute schedule (no drift), until stopped or
/// `tick` returns `false`. Used by capturers and clock-paced audio devices.
///
/// When a tick overruns, the schedule restarts from now instead of bursting to catch up. ``stop()`` wakes
/// the thread at once and joins it (from inside `tick` it only asks). Nothing is allocated per tick.
public final class PeriodicThread: Sendable {
    private let wake = DispatchSemaphore(value: 0)
    private let thread: Mutex<MediaThread?> = Mutex(nil)

    /// Starts calling `tick` every `interval`, the first call right away.
    public init(name: String, interval: Duration, tick: @escaping @Sendable () -> Bool) {
        precondition(interval > .zero, "interval must be positive")
        let step = UInt64(interval.nanoseconds)
        let wake = self.wake
        let t = MediaThread(name: name) { me in
            var deadline = DispatchTime.now().uptimeNanoseconds
            while !me.isStopping {
                if !tick() { return }
                deadline += step
                let now = DispatchTime.now().uptimeNanoseconds
                if deadline < now { deadline = now }
                _ = wake.wait(timeout: DispatchTime(uptimeNanoseconds: deadline))
            }
        }
        thread.withLock { $0 = t }
    }

    /// Whether the caller is running on this thread.
    public var isCurrent: Bool { thread.withLock { $0?.isCurrent ?? false } }

    /// Stops the schedule; joins the thread unless called from `tick`. Idempotent.
    public func stop() {
        let t = thread.withLock { $0 }
        guard let t else { return }
        if t.isCurrent { t.stop(); return }
        thread.withLock { $0 = nil }
        wake.signal()
        t.stop()
    }
}
