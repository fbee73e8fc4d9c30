import Dispatch
import Synchronization

/// A bounded single-producer, single-consumer queue of encoded video frames in preallocated slots: the network
/// thread copies each complete frame in, the decode thread decodes it in place.
///
/// ``push(length:fill:)`` never blocks: when every slot is taken it returns false (the caller drops the frame
/// and asks for a keyframe, or, for a keyframe, makes room with ``dropWaiting()``). A slot grows only when a
/// frame is larger than any before it (rare, at keyframes); otherwise nothing is allocated. ``pop(_:)`` blocks
/// until a frame or ``wakeUp()``.
final class EncodedFrameQueue: Sendable {
    /// What travels with a frame's bytes.
    struct Header: Sendable {
        var rtpTimestamp: UInt32 = 0
        var receivedAt: Duration = .zero
        var isKeyframe = false
    }

    private typealias Slot = QueueSlot<Header>

    private struct Indices {
        var head = 0
        var count = 0
        /// The consumer is reading the head slot (between pop's take and release): it must stay.
        var consumerHoldsHead = false
    }

    let capacity: Int
    private let slots: [Slot]
    private let indices = Mutex(Indices())
    private let signal = DispatchSemaphore(value: 0)

    init(capacity: Int = 3, slotBytes: Int = 256 * 1024) {
        self.capacity = capacity
        slots = (0..<capacity).map { _ in Slot(capacity: slotBytes, header: Header()) }
    }

    /// Copies one frame in: `fill` writes `length` bytes into the buffer it gets. False when full.
    func push(length: Int, header: Header, fill: (UnsafeMutableRawBufferPointer) -> Void) -> Bool {
        let index: Int? = indices.withLock { i in i.count == capacity ? nil : (i.head + i.count) % capacity }
        guard let index else { return false }
        let slot = slots[index]
        slot.reserve(length)
        fill(UnsafeMutableRawBufferPointer(rebasing: slot.bytes[0..<length]))
        slot.length = length
        slot.header = header
        indices.withLock { $0.count += 1 }
        signal.signal()
        return true
    }

    /// Waits for a frame and calls `body` with it (valid only during the call); false when woken empty.
    @discardableResult
    func pop(_ body: (UnsafeRawBufferPointer, Header) -> Void) -> Bool {
        signal.wait()
        let index: Int? = indices.withLock { i in
            guard i.count > 0 else { return nil }
            i.consumerHoldsHead = true
            return i.head
        }
        guard let index else { return false }
        let slot = slots[index]
        body(UnsafeRawBufferPointer(rebasing: slot.bytes[0..<slot.length]), slot.header)
        indices.withLock { i in
            i.head = (i.head + 1) % capacity
            i.count -= 1
            i.consumerHoldsHead = false
        }
        return true
    }

    /// Producer side: drops every frame still waiting (not the one the consumer is reading) and returns how many.
    /// For a keyframe arriving at a full queue: the frames before it are no longer needed to decode what follows.
    /// The consumer may then wake once per dropped frame without one (``pop(_:)`` returns false).
    func dropWaiting() -> Int {
        indices.withLock { i in
            let keep = i.consumerHoldsHead ? 1 : 0
            let dropped = i.count - keep
            if keep == 0 { i.head = (i.head + dropped) % capacity }
            i.count = keep
            return dropped
        }
    }

    /// Drops every queued frame (consumer side, or when nothing is consuming).
    func removeAll() {
        indices.withLock { i in
            i.head = (i.head + i.count) % capacity
            i.count = 0
        }
    }

    /// Frames waiting.
    var count: Int { indices.withLock { $0.count } }

    /// Wakes the consumer without a frame (to stop it).
    func wakeUp() { signal.signal() }
}
