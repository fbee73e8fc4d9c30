import Synchronization

/// A bounded FIFO of interleaved Int16 samples, preallocated once, guarded by a lock.
///
/// ``write(_:)`` never blocks and never grows the buffer: when the samples do not fit, the **oldest** ones are
/// dropped (counted in ``droppedSamples``). ``read(into:)`` always fills the whole destination, with silence
/// (zeros) after the real samples when there are not enough (counted in ``missingSamples``).
///
/// Thread-safe: any number of writers and readers may call it concurrently; each call holds the lock only for
/// two `memcpy`s. Nothing is allocated after `init`.
public final class AudioRingBuffer: Sendable {
    /// How many samples it holds at most.
    public let capacity: Int

    private struct State {
        var head = 0        // index of the oldest sample
        var count = 0       // samples stored
        var dropped = 0     // samples discarded on overflow
        var missing = 0     // zeros handed out on underflow
    }

    nonisolated(unsafe) private let storage: UnsafeMutablePointer<Int16>
    private let state = Mutex(State())

    /// A ring of `capacity` samples (at least 1; a smaller value is raised to 1).
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        storage = .allocate(capacity: self.capacity)
        storage.initialize(repeating: 0, count: self.capacity)
    }

    deinit { storage.deallocate() }

    /// Appends `samples`, dropping the oldest stored samples (or the oldest of `samples` themselves when there are
    /// more than ``capacity``) so that the newest ones always fit.
    public func write(_ samples: UnsafeBufferPointer<Int16>) {
        guard var src = samples.baseAddress, samples.count > 0 else { return }
        var n = samples.count
        state.withLock { s in
            if n > capacity {                       // only the newest `capacity` samples can be kept
                s.dropped += n - capacity
                src += n - capacity
                n = capacity
            }
            let overflow = s.count + n - capacity
            if overflow > 0 {                       // make room by forgetting the oldest
                s.head = (s.head + overflow) % capacity
                s.count -= overflow
                s.dropped += overflow
            }
            let tail = (s.head + s.count) % capacity
            let first = min(n, capacity - tail)
            (storage + tail).update(from: src, count: first)
            if first < n { storage.update(from: src + first, count: n - first) }
            s.count += n
        }
    }

    /// Fills all of `buffer`: stored samples first (oldest first), then zeros. Returns how many real samples it
    /// copied.
    @discardableResult
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        guard let dst = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let wanted = buffer.count
        let copied = state.withLock { s in
            let n = min(wanted, s.count)
            let first = min(n, capacity - s.head)
            dst.update(from: storage + s.head, count: first)
            if first < n { (dst + first).update(from: storage, count: n - first) }
            s.head = (s.head + n) % capacity
            s.count -= n
            s.missing += wanted - n
            return n
        }
        if copied < wanted { (dst + copied).update(repeating: 0, count: wanted - copied) }
        return copied
    }

    /// Samples currently stored.
    public var count: Int { state.withLock { $0.count } }
    /// Samples dropped so far because the ring was full.
    public var droppedSamples: Int { state.withLock { $0.dropped } }
    /// Zero samples handed out so far because the ring was empty.
    public var missingSamples: Int { state.withLock { $0.missing } }

    /// Forgets the stored samples (the counters are kept).
    public func removeAll() { state.withLock { $0.head = 0; $0.count = 0 } }
}
