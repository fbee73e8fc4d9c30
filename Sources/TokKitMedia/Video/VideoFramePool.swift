import Synchronization

/// A bounded set of reusable frame buffers, so that a steady stream of frames allocates nothing.
///
/// ``makeFrame(format:compressedSize:timestamp:orientation:)`` hands out a buffer nobody holds any more
/// (detected by reference count, so frames are returned simply by being dropped). When every buffer is held,
/// it throws ``VideoFrameError/poolExhausted(capacity:)``: the caller drops the frame, which is what
/// "newest frame wins" wants from a live source. Thread-safe.
public final class VideoFramePool: Sendable {
    /// The most buffers the pool keeps.
    public let capacity: Int
    private let buffers: Mutex<[FrameStorage]>

    /// A pool of at most `capacity` buffers (at least 1; traps otherwise). Buffers are allocated when first
    /// needed; a free one too small for a larger format is replaced.
    public init(capacity: Int = 4) {
        precondition(capacity > 0, "a pool needs room for at least one frame")
        self.capacity = capacity
        var initial: [FrameStorage] = []
        initial.reserveCapacity(capacity)
        buffers = Mutex(initial)
    }

    /// A writable frame of `format` (contents undefined) backed by a free pooled buffer.
    ///
    /// Fill it through ``VideoFrame/withMutablePlanes(_:)`` before sharing it.
    /// - Parameter compressedSize: for MJPEG, the byte count of the single plane.
    public func makeFrame(
        format: VideoFormat, compressedSize: Int = 0, timestamp: Duration = MonotonicClock.now(),
        orientation: VideoOrientation = .up
    ) throws(VideoFrameError) -> VideoFrame {
        try format.validate()
        let needed = FrameStorage.byteCount(for: format, compressedSize: compressedSize)
        guard let storage = take(byteCount: needed) else { throw .poolExhausted(capacity: capacity) }
        var offsets = (0, 0, 0)
        var sizes = (0, 0, 0)
        var offset = 0
        for i in 0..<format.pixelFormat.planeCount {
            let size = format.pixelFormat.isCompressed ? compressedSize : format.minimumSize(ofPlane: i)
            switch i {
            case 0: (offsets.0, sizes.0) = (offset, size)
            case 1: (offsets.1, sizes.1) = (offset, size)
            default: (offsets.2, sizes.2) = (offset, size)
            }
            offset += FrameStorage.alignUp(size)
        }
        func plane(_ o: Int, _ n: Int) -> UnsafeRawBufferPointer { .init(start: storage.base + o, count: n) }
        let planes = VideoFramePlanes(
            plane(offsets.0, sizes.0), plane(offsets.1, sizes.1), plane(offsets.2, sizes.2),
            count: format.pixelFormat.planeCount)
        return VideoFrame(format: format, planes: planes, storage: storage, timestamp: timestamp, orientation: orientation)
    }

    /// How many buffers are held outside the pool right now (for tests and statistics).
    public var buffersInUse: Int {
        buffers.withLock { all in
            var n = 0
            for i in all.indices where !isKnownUniquelyReferenced(&all[i]) { n += 1 }
            return n
        }
    }

    private func take(byteCount: Int) -> FrameStorage? {
        buffers.withLock { all -> FrameStorage? in
            var smallFree: Int?
            for i in all.indices where isKnownUniquelyReferenced(&all[i]) {
                if all[i].capacity >= byteCount { return all[i] }
                smallFree = i
            }
            let fresh = FrameStorage(capacity: byteCount)
            if let smallFree {
                all[smallFree] = fresh
            } else if all.count < capacity {
                all.append(fresh)
            } else {
                return nil
            }
            return fresh
        }
    }
}
