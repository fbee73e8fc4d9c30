import Dispatch
import Synchronization
import TokKitMedia

/// A one-slot, newest-wins hand-off of video frames from a capturer's thread to an encode thread.
///
/// ``put(_:)`` never blocks: a frame still waiting is replaced (and reported, so it can be counted as
/// dropped). ``wait()`` blocks the consumer until something was put or ``wakeUp()`` was called.
/// Thread-safe; allocation-free.
final class FrameMailbox: Sendable {
    private let slot = Mutex<VideoFrame?>(nil)
    private let signal = DispatchSemaphore(value: 0)

    /// Leaves `frame` for the consumer; returns true when it replaced a frame nobody had taken.
    @discardableResult
    func put(_ frame: VideoFrame) -> Bool {
        var old: VideoFrame? = frame
        slot.withLock { swap(&$0, &old) }
        signal.signal()
        return old != nil  // released here, outside the lock
    }

    /// Blocks until woken, then takes the frame, if any.
    func wait() -> VideoFrame? {
        signal.wait()
        return slot.withLock { s in defer { s = nil }; return s }
    }

    /// Wakes the consumer without a frame (to stop it).
    func wakeUp() { signal.signal() }

    /// Drops a waiting frame.
    func clear() { _ = slot.withLock { s in defer { s = nil }; return s } }
}
