/// Heap memory behind a pooled or copied ``VideoFrame``: one 64-byte-aligned block holding every plane.
///
/// Written only by whoever took it fresh from a pool (before sharing the frame), read-only afterwards;
/// that discipline is what makes the `@unchecked Sendable` sound.
final class FrameStorage: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(byteCount: max(capacity, 1), alignment: 64)
    }

    deinit { base.deallocate() }

    /// Bytes needed to hold `format` with each plane starting on a 64-byte boundary.
    static func byteCount(for format: VideoFormat, compressedSize: Int) -> Int {
        if format.pixelFormat.isCompressed { return alignUp(compressedSize) }
        return (0..<format.bytesPerRow.count).reduce(0) { $0 + alignUp(format.minimumSize(ofPlane: $1)) }
    }

    static func alignUp(_ n: Int) -> Int { (n + 63) & ~63 }
}
