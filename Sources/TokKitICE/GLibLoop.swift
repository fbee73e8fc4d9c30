import CNice
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

    /// Creates the context and starts the thread (`name` is visible in `top -H`, 15 bytes kept).
    init(name: String) {
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
        let me = Unmanaged.passRetained(self).toOpaque()  // released by the thread when the loop ends
        let t = g_thread_new(String(name.utf8.prefix(15)) ?? "tk-ice", glibLoopEntry, me)
        thread.withLock { $0 = t.map(ThreadHandle.init) }
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
