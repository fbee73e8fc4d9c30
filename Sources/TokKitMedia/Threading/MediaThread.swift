#if canImport(Glibc)
import Glibc
#endif
import CTokKitSystem
import Synchronization

/// A named OS thread for the data plane (capture, encode, network), visible as such in `top -H` and `gdb`.
///
/// The body runs once; a loop inside it checks ``isStopping`` (or is woken by ``stop()``'s callback). ``stop()``
/// asks it to end and waits for it, except when called from the thread itself, where it only asks.
public final class MediaThread: Sendable {
    /// The name given at creation (Linux keeps the first 15 bytes).
    public let name: String
    private let stopping = Atomic<Bool>(false)
    private let handle = Mutex<pthread_t?>(nil)

    /// Starts a thread named `name` running `body(self)`.
    public init(name: String, body: @escaping @Sendable (MediaThread) -> Void) {
        self.name = name
        let box = Unmanaged.passRetained(Box(thread: self, body: body)).toOpaque()
        var tid = pthread_t()
        let rc = pthread_create(&tid, nil, mediaThreadEntry, box)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        handle.withLock { $0 = tid }
    }

    /// Whether ``stop()`` has been called.
    public var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Whether the caller is running on this thread.
    public var isCurrent: Bool {
        handle.withLock { h in h.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Asks the body to end and joins the thread (returns at once when called from the thread itself).
    /// Idempotent.
    public func stop() {
        stopping.store(true, ordering: .releasing)
        if isCurrent { return }
        let tid: pthread_t? = handle.withLock { h in defer { h = nil }; return h }
        if let tid { pthread_join(tid, nil) }
    }

    deinit {
        // A thread that was never joined (stopped from inside itself) is detached so it frees its stack.
        if let tid = handle.withLock({ $0 }) { pthread_detach(tid) }
    }

    final class Box {
        let thread: MediaThread
        let body: @Sendable (MediaThread) -> Void
        init(thread: MediaThread, body: @escaping @Sendable (MediaThread) -> Void) {
            self.thread = thread
            self.body = body
        }
    }
}

private let mediaThreadEntry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
    let box = Unmanaged<MediaThread.Box>.fromOpaque(raw!).takeRetainedValue()
    _ = tk_thread_set_name(String(box.thread.name.utf8.prefix(15))!)
    box.body(box.thread)
    return nil
}
