/// The planes of a ``VideoFrame``, read-only, stored inline (no heap allocation).
///
/// Valid only inside ``VideoFrame/withPlanes(_:)``: a borrowed frame's memory may be rewritten or freed by its
/// owner as soon as that returns.
public struct VideoFramePlanes: RandomAccessCollection {
    var p0, p1, p2: UnsafeRawBufferPointer
    /// The number of planes of the frame's pixel format (1 to 3).
    public let count: Int

    init(_ p0: UnsafeRawBufferPointer, _ p1: UnsafeRawBufferPointer, _ p2: UnsafeRawBufferPointer, count: Int) {
        (self.p0, self.p1, self.p2, self.count) = (p0, p1, p2, count)
    }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// ``count``.
    public var endIndex: Int { count }
    /// Plane `i` (0 is Y or the packed pixels), exactly as long as the frame's memory holds. Traps outside `0..<count`.
    public subscript(i: Int) -> UnsafeRawBufferPointer {
        precondition(i >= 0 && i < count, "plane index out of range")
        switch i {
        case 0: return p0
        case 1: return p1
        default: return p2
        }
    }
}

/// The planes of a frame fresh from a ``VideoFramePool``, writable, stored inline.
public struct MutableVideoFramePlanes: RandomAccessCollection {
    let planes: VideoFramePlanes
    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of planes.
    public var endIndex: Int { planes.count }
    /// Plane `i`, writable. Traps outside `0..<count`.
    public subscript(i: Int) -> UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(mutating: planes[i]) }
}
