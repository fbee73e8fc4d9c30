import CNice
import Glibc
import Synchronization

/// A private GLib main context run by `g_main_loop_run` on its own named thread: the network thread of one
/// ``ICEAgent``. libnice's sockets, timers and receive callbacks, and the work passed to ``invoke(_:)`` and
/// ``schedule(after:_:)``, all run there.
///
/// Threading: every method may be called from any thread. The GLib calls used (`g_main_loop_quit`,
/// `g_main_context_invoke_full`, `g_source_attach`, `g_main_context_is_owner`) are documented thread-safe and
/// the pointers never change after `init`, hence `@unchecked Sendable`.
final class GLibLoop: @unchecked Sendable {
    /// The `GMainContext` libnice is created with.
    let context: OpaquePointer
    private let loop: OpaquePointer
    private let thread = Mutex<ThreadHandle?>(nil)

    /// The poll batching of the loop thread, `nil` without (see ``init(name:batching:)``).
    private let batching: PollBatching?

    /// Creates the context and starts the thread (`name` is visible in `top -H`, 15 bytes kept). With `batching`,
    /// the thread waits at least that long after each wake-up before it polls again (waking for a timer due
    /// sooner, or for work handed to it), so that what arrives meanwhile is handled in one wake-up
    /// (``ICEConfiguration/receiveBatching``).
    init(name: String, batching: Duration? = nil) {
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
        if let batching, batching > .zero {
            self.batching = PollBatching(microseconds: min(max(batching.nanoseconds / 1_000, 1), 1_000_000),
                                         wakeupDescriptor: Self.wakeupDescriptor(of: context))
            g_main_context_set_poll_func(context, glibBatchingPoll)
        } else {
            self.batching = nil
        }
        let me = Unmanaged.passRetained(self).toOpaque()  // released by the thread when the loop ends
        let t = g_thread_new(String(name.utf8.prefix(15)) ?? "tk-ice", glibLoopEntry, me)
        thread.withLock { $0 = t.map(ThreadHandle.init) }
    }

    /// The descriptor of `context`'s wakeup (GLib's `GWakeup`, an eventfd), -1 if not found: what GLib writes when
    /// work is handed to the context from another thread (a source attached, `g_main_context_invoke`, the loop's
    /// quit). A new context polls that descriptor alone, and `g_main_context_query` lists it; called before the loop
    /// thread starts, with the context acquired.
    private static func wakeupDescriptor(of context: OpaquePointer) -> Int32 {
        guard g_main_context_acquire(context) != 0 else { return -1 }
        defer { g_main_context_release(context) }
        var fds = [GPollFD](repeating: GPollFD(), count: 4)
        var timeout: gint = 0
        let count = g_main_context_query(context, gint.max, &timeout, &fds, gint(fds.count))
        return count == 1 ? fds[0].fd : -1
    }

    /// The batching sleeps so far and how many of them work handed to the thread ended early; zeros without
    /// batching. Any thread.
    var batchingCounts: (sleeps: Int, endedByWakeup: Int) {
        guard let batching else { return (0, 0) }
        return (batching.sleeps.load(ordering: .relaxed), batching.sleepsEndedByWakeup.load(ordering: .relaxed))
    }

    deinit {
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }

    /// Whether the caller runs on the loop thread (inside `g_main_loop_run`).
    var isCurrent: Bool { g_main_context_is_owner(context) != 0 }

    /// Runs `work` on the loop thread: inline when already there, else at the next iteration. Work still
    /// queued when the loop stops is dropped.
    func invoke(_ work: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(WorkBox(work)).toOpaque()
        g_main_context_invoke_full(context, 0, glibRunOnce, box, glibReleaseWork)
    }

    /// Runs `work` once on the loop thread after `delay` (millisecond resolution, rounded up). Dropped if
    /// the loop stops first.
    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
        attach(g_timeout_source_new(Self.milliseconds(delay)), glibRunOnce,
               Unmanaged.passRetained(WorkBox(work)).toOpaque(), glibReleaseWork)
    }

    /// Runs `work` on the loop thread every `interval` (millisecond resolution, rounded up, at least 1 ms)
    /// until it returns false or the loop stops. One timer source for all runs: nothing is allocated per run.
    func schedule(every interval: Duration, _ work: @escaping @Sendable () -> Bool) {
        attach(g_timeout_source_new(max(Self.milliseconds(interval), 1)), glibRunRepeating,
               Unmanaged.passRetained(RepeatingWorkBox(work)).toOpaque(), glibReleaseRepeatingWork)
    }

    /// `duration` in whole milliseconds, rounded up; 0 for negative durations, saturating at `UInt32.max`.
    private static func milliseconds(_ duration: Duration) -> UInt32 {
        let ns = max(duration.nanoseconds, 0)
        return UInt32(clamping: ns / 1_000_000 + (ns % 1_000_000 == 0 ? 0 : 1))
    }

    /// Attaches `source` to the context with `callback(box)`, `release(box)` when the source goes.
    private func attach(_ source: UnsafeMutablePointer<GSource>?, _ callback: GSourceFunc,
                        _ box: UnsafeMutableRawPointer, _ release: GDestroyNotify) {
        g_source_set_callback(source, callback, box, release)
        g_source_attach(source, context)
        g_source_unref(source)
    }

    /// Makes `g_main_loop_run` return.
    func quit() { g_main_loop_quit(loop) }

    /// Waits for the thread to end (after ``quit()``). From the loop thread itself it only lets go of the
    /// thread, which then ends on its own once the current callback returns. Idempotent.
    func join() {
        guard let t = thread.withLock({ h in defer { h = nil }; return h }) else { return }
        let gthread = t.pointer
        if isCurrent { g_thread_unref(gthread) } else { _ = g_thread_join(gthread) }
    }

    /// Runs the loop; called on the new thread only.
    fileprivate func run() {
        if let batching { pthread_setspecific(pollBatchingKey, Unmanaged.passUnretained(batching).toOpaque()) }
        g_main_context_push_thread_default(context)
        g_main_loop_run(loop)
        g_main_context_pop_thread_default(context)
    }

    /// A `GThread *`; only handed from `init` to `join()`.
    struct ThreadHandle: @unchecked Sendable {
        let pointer: UnsafeMutablePointer<GThread>
    }

    final class WorkBox {
        let work: @Sendable () -> Void
        init(_ work: @escaping @Sendable () -> Void) { self.work = work }
    }

    final class RepeatingWorkBox {
        let work: @Sendable () -> Bool
        init(_ work: @escaping @Sendable () -> Bool) { self.work = work }
    }
}

/// The poll batching state of one loop thread: ``lastReturn`` is read and written by that thread only (its poll
/// function), the counters are atomic, hence `@unchecked Sendable`.
final class PollBatching: @unchecked Sendable {
    /// The least time from one wake-up to the next wait for the network, in microseconds.
    let microseconds: Int64
    /// The context's wakeup descriptor (-1: unknown, the sleep cannot be ended early).
    let wakeupDescriptor: Int32
    /// When the last poll returned (GLib's monotonic clock, microseconds).
    var lastReturn: Int64 = 0
    /// Sleeps begun, and those ended early by the context's wakeup.
    let sleeps = Atomic<Int>(0)
    let sleepsEndedByWakeup = Atomic<Int>(0)

    init(microseconds: Int64, wakeupDescriptor: Int32) {
        self.microseconds = microseconds
        self.wakeupDescriptor = wakeupDescriptor
    }

    /// Sleeps `microseconds` (> 0) unless the context's wakeup is (or becomes) readable meanwhile: work was handed
    /// to the thread (a source attached from another thread, an invoke, the loop's quit), which then runs at once.
    /// Returns whether the wakeup ended the sleep. GLib reads (acknowledges) the wakeup itself after its poll.
    func sleep(microseconds: Int64) -> Bool {
        sleeps.add(1, ordering: .relaxed)
        guard wakeupDescriptor >= 0 else {
            g_usleep(gulong(microseconds))
            return false
        }
        var wake = pollfd(fd: wakeupDescriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&wake, 1, Int32(clamping: (microseconds + 999) / 1_000))  // rounded up to whole ms
        guard ready > 0, wake.revents & Int16(POLLIN) != 0 else { return false }
        sleepsEndedByWakeup.add(1, ordering: .relaxed)
        return true
    }
}

/// The thread-specific key under which a batching loop thread keeps its ``PollBatching``.
private let pollBatchingKey: pthread_key_t = {
    var key = pthread_key_t()
    precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create")
    return key
}()

/// The poll function of a batching context (`g_main_context_set_poll_func`): a wait that would start less than
/// the batching interval after the last wake-up first sleeps out the rest of the interval (or until GLib's
/// timeout, whichever is sooner; watching only the context's wakeup, so that work handed to the thread meanwhile
/// ends the sleep at once), then polls. A poll that must not block (timeout 0) and a thread without
/// batching state (a context iterated elsewhere) poll at once. One thread-specific read and two clock reads a
/// wake-up; nothing allocated.
private let glibBatchingPoll: GPollFunc = { fds, count, timeout in
    guard timeout != 0, let raw = pthread_getspecific(pollBatchingKey) else { return g_poll(fds, count, timeout) }
    let state = Unmanaged<PollBatching>.fromOpaque(raw).takeUnretainedValue()
    var timeout = timeout
    let wait = state.lastReturn + state.microseconds - Int64(g_get_monotonic_time())
    if wait > 0 {
        let sleep = timeout < 0 ? wait : min(wait, Int64(timeout) * 1_000)
        if state.sleep(microseconds: sleep) {
            timeout = 0  // work was handed to the thread: poll without waiting (the wakeup is readable anyway)
        } else if timeout > 0 {
            timeout = gint(max(0, (Int64(timeout) * 1_000 - sleep) / 1_000))
        }
    }
    let ready = g_poll(fds, count, timeout)
    state.lastReturn = Int64(g_get_monotonic_time())
    return ready
}

private let glibLoopEntry: GThreadFunc = { raw in
    let loop = Unmanaged<GLibLoop>.fromOpaque(raw!).takeRetainedValue()
    loop.run()
    return nil
}

private let glibRunOnce: GSourceFunc = { raw in
    Unmanaged<GLibLoop.WorkBox>.fromOpaque(raw!).takeUnretainedValue().work()
    return 0  // G_SOURCE_REMOVE
}

private let glibReleaseWork: GDestroyNotify = { raw in
    Unmanaged<GLibLoop.WorkBox>.fromOpaque(raw!).release()
}

private let glibRunRepeating: GSourceFunc = { raw in
    Unmanaged<GLibLoop.RepeatingWorkBox>.fromOpaque(raw!).takeUnretainedValue().work() ? 1 : 0  // CONTINUE : REMOVE
}

private let glibReleaseRepeatingWork: GDestroyNotify = { raw in
    Unmanaged<GLibLoop.RepeatingWorkBox>.fromOpaque(raw!).release()
}

extension Duration {
    /// Whole nanoseconds, saturating.
    var nanoseconds: Int64 {
        let (s, atto) = components
        return s.multipliedReportingOverflow(by: 1_000_000_000).overflow
            ? (s < 0 ? .min : .max) : s * 1_000_000_000 + atto / 1_000_000_000
    }
}
