/// One video image with its format, capture time and orientation, as the SDK's `OTVideoFrame`.
///
/// A frame is a small `Sendable` value. Its pixels live in one of two places:
/// - **pooled** memory from a ``VideoFramePool`` (or a private copy): kept alive as long as any copy of the
///   frame is; safe to keep, queue and send to other threads;
/// - **borrowed** memory its owner keeps (a capturer's buffer, a decoder's picture), lent through a
///   ``FrameLease`` for the length of one call (``VideoCaptureConsumer/consumeFrame(_:)``,
///   ``VideoRender/renderVideoFrame(_:)``, ``FrameLease/lend(format:borrowing:_:_:timestamp:orientation:to:)``).
///   Once the owner takes the memory back, every read of the frame fails with ``VideoFrameError/expired`` and
///   reads nothing: a receiver that wants the pixels later must ``copy(using:)`` it before returning.
///
/// Every read of the pixels goes through ``withPlanes(_:)`` (or ``copy(using:)`` and the converters built on
/// it), which is where a borrowed frame checks that its memory is still lent. Every initializer checks that each
/// plane holds at least what the format demands, so no frame is ever read out of bounds.
public struct VideoFrame: Sendable {
    /// The SDK's limit on per-frame metadata.
    public static let maximumMetadataSize = 32

    /// The layout of the pixels; the planes hold at least what it demands.
    public let format: VideoFormat
    /// Capture time on the monotonic clock (``MonotonicClock``).
    public var timestamp: Duration
    /// How the image must be rotated to be upright (``VideoConverter/rotateUpright(_:)`` does it).
    public var orientation: VideoOrientation
    /// Application bytes carried with the frame (at most ``maximumMetadataSize``).
    public private(set) var metadata: [UInt8]?

    private let planes: PlaneAddresses
    /// Pooled or copied memory, alive as long as the frame holds it (`nil` for a borrowed frame).
    private let storage: FrameStorage?
    /// For a borrowed frame, the owner's lease: the memory is readable only while the lease is at `generation`.
    private let lease: FrameLease?
    /// The generation of ``lease`` the frame was lent under (0 for a pooled frame).
    private let generation: UInt64

    /// Wraps memory the caller owns, without copying, readable until `lease` is next revoked.
    ///
    /// Prefer ``FrameLease/lend(format:borrowing:_:_:timestamp:orientation:to:)``, which revokes for you when the
    /// call that receives the frame returns. Use this initializer when the frame must stay readable across calls
    /// (a file reader's last frame) and call ``FrameLease/revoke()`` before rewriting or freeing the memory.
    ///
    /// - Parameters:
    ///   - format: the layout of the planes.
    ///   - plane0: the first plane (Y, or the packed pixels, or the compressed bytes).
    ///   - plane1: the second plane, when the format has one.
    ///   - plane2: the third plane, when the format has one.
    ///   - lease: the owner's lease; the frame expires at its next ``FrameLease/revoke()``.
    ///   - timestamp: capture time on the monotonic clock.
    ///   - orientation: how the image must be rotated to be upright.
    /// - Throws: ``VideoFrameError`` if the format is invalid, the plane count is wrong, or a plane is smaller
    ///   than the format demands. Nothing is read in that case.
    public init(
        format: VideoFormat, borrowing plane0: UnsafeRawBufferPointer, _ plane1: UnsafeRawBufferPointer? = nil,
        _ plane2: UnsafeRawBufferPointer? = nil, lease: FrameLease, timestamp: Duration = MonotonicClock.now(),
        orientation: VideoOrientation = .up
    ) throws(VideoFrameError) {
        let given = plane2 != nil ? 3 : plane1 != nil ? 2 : 1
        let p = VideoFramePlanes(plane0, plane1 ?? .init(start: nil, count: 0), plane2 ?? .init(start: nil, count: 0), count: given)
        try Self.check(format, p)
        self.init(format: format, planes: p, storage: nil, lease: lease, generation: lease.generation,
                  timestamp: timestamp, orientation: orientation)
    }

    /// Copies the given planes into memory the frame owns.
    ///
    /// - Throws: ``VideoFrameError`` if the format is invalid, the plane count is wrong, or a plane is smaller
    ///   than the format demands.
    public init(
        format: VideoFormat, copying planes: [[UInt8]], timestamp: Duration = MonotonicClock.now(),
        orientation: VideoOrientation = .up
    ) throws(VideoFrameError) {
        try format.validate()
        let expected = format.pixelFormat.planeCount
        guard planes.count == expected else { throw .wrongPlaneCount(expected: expected, actual: planes.count) }
        for i in 0..<expected where planes[i].count < format.minimumSize(ofPlane: i) {
            throw .planeTooSmall(plane: i, size: planes[i].count, minimum: format.minimumSize(ofPlane: i))
        }
        let compressed = format.pixelFormat.isCompressed ? planes[0].count : 0
        self = try VideoFramePool(capacity: 1).makeFrame(
            format: format, compressedSize: compressed, timestamp: timestamp, orientation: orientation)
        withMutablePlanes { dst in
            for i in 0..<expected {
                planes[i].withUnsafeBytes { src in
                    dst[i].copyMemory(from: UnsafeRawBufferPointer(rebasing: src.prefix(dst[i].count)))
                }
            }
        }
    }

    /// A pooled frame over `storage` (``VideoFramePool`` makes these).
    init(format: VideoFormat, planes: VideoFramePlanes, storage: FrameStorage, timestamp: Duration, orientation: VideoOrientation) {
        self.init(format: format, planes: planes, storage: storage, lease: nil, generation: 0, timestamp: timestamp,
                  orientation: orientation)
    }

    private init(
        format: VideoFormat, planes: VideoFramePlanes, storage: FrameStorage?, lease: FrameLease?, generation: UInt64,
        timestamp: Duration, orientation: VideoOrientation
    ) {
        self.format = format
        self.planes = PlaneAddresses(planes: planes)
        self.storage = storage
        self.lease = lease
        self.generation = generation
        self.timestamp = timestamp
        self.orientation = orientation
    }

    static func check(_ format: VideoFormat, _ planes: VideoFramePlanes) throws(VideoFrameError) {
        try format.validate()
        let expected = format.pixelFormat.planeCount
        guard planes.count == expected else { throw .wrongPlaneCount(expected: expected, actual: planes.count) }
        for i in 0..<expected {
            let need = format.minimumSize(ofPlane: i)
            guard planes[i].baseAddress != nil, planes[i].count >= need else {
                throw .planeTooSmall(plane: i, size: planes[i].count, minimum: need)
            }
        }
    }

    /// Whether the frame points at memory it does not own (see the type's documentation). A borrowed frame may
    /// have expired; a pooled one never does.
    public var isBorrowed: Bool { lease != nil }

    /// Calls `body` with the frame's planes, keeping the memory readable meanwhile.
    ///
    /// A pooled frame can always be read. A borrowed frame can be read until its owner revokes it (normally when
    /// the call it was handed to returns); a revocation that comes while `body` runs waits for `body` to return.
    /// The planes are valid only inside `body`.
    ///
    /// ```swift
    /// let luma = try frame.withPlanes { planes in planes[0][0] }
    /// ```
    /// - Throws: ``VideoFrameError/expired`` (and `body` is not called) if the frame is borrowed and its owner has
    ///   taken the memory back; what `body` throws.
    public func withPlanes<R>(_ body: (VideoFramePlanes) throws(VideoFrameError) -> R) throws(VideoFrameError) -> R {
        // Written out rather than forwarded to withPlanes(ifExpired:_:): the generic hop cost a pooled read
        // several times its own price. A pooled frame is kept alive by `self` for the call: nothing to check.
        guard let lease else { return try body(planes.planes) }
        guard lease.enter(generation) else { throw .expired }
        defer { lease.leave() }
        return try body(planes.planes)
    }

    /// Calls `body` with the frame's planes, as ``withPlanes(_:)``, for a `body` that throws its own error type.
    ///
    /// ```swift
    /// try frame.withPlanes(ifExpired: MediaFileError.frameExpired) { planes throws(MediaFileError) in … }
    /// ```
    /// - Parameters:
    ///   - expired: the error thrown, without calling `body`, if the frame is borrowed and has expired.
    ///   - body: reads the planes, which are valid only inside it.
    /// - Throws: `expired()`; what `body` throws.
    public func withPlanes<R, E: Error>(
        ifExpired expired: @autoclosure () -> E, _ body: (VideoFramePlanes) throws(E) -> R
    ) throws(E) -> R {
        guard let lease else { return try body(planes.planes) }
        guard lease.enter(generation) else { throw expired() }
        defer { lease.leave() }
        return try body(planes.planes)
    }

    /// Calls `body` with writable planes. Only for a frame fresh from a pool that nobody else has seen yet; traps
    /// on a borrowed frame (``VideoFrameError/notWritable``).
    public func withMutablePlanes<R, E: Error>(_ body: (MutableVideoFramePlanes) throws(E) -> R) throws(E) -> R {
        guard storage != nil else { preconditionFailure("\(VideoFrameError.notWritable)") }
        return try body(MutableVideoFramePlanes(planes: planes.planes))
    }

    /// Attaches up to ``maximumMetadataSize`` bytes of application metadata.
    public mutating func setMetadata(_ bytes: [UInt8]?) throws(VideoFrameError) {
        if let bytes, bytes.count > Self.maximumMetadataSize { throw .metadataTooLarge(size: bytes.count) }
        metadata = bytes
    }

    /// A copy in pooled memory: safe to keep after the call that handed this frame over returns.
    ///
    /// - Throws: ``VideoFrameError/expired`` if the frame is borrowed and its owner has taken the memory back
    ///   (nothing is copied); ``VideoFrameError/poolExhausted(capacity:)`` when every buffer of `pool` is held.
    public func copy(using pool: VideoFramePool) throws(VideoFrameError) -> VideoFrame {
        let compressed = format.pixelFormat.isCompressed ? planes.planes[0].count : 0
        var copy = try pool.makeFrame(format: format, compressedSize: compressed, timestamp: timestamp, orientation: orientation)
        copy.metadata = metadata
        try withPlanes { src in
            copy.withMutablePlanes { dst in
                for i in 0..<src.count {
                    let n = format.pixelFormat.isCompressed ? src[i].count : format.minimumSize(ofPlane: i)
                    dst[i].baseAddress!.copyMemory(from: src[i].baseAddress!, byteCount: n)
                }
            }
        }
        return copy
    }
}

/// The addresses of a frame's planes, so that ``VideoFrame`` can be checked `Sendable`.
///
/// `@unchecked` because raw pointers are not `Sendable`; sending the addresses is safe because they are only
/// dereferenced inside ``VideoFrame/withPlanes(_:)`` and ``VideoFrame/withPlanes(ifExpired:_:)`` (what every read
/// goes through) and ``VideoFrame/withMutablePlanes(_:)``, once the frame vouches for the memory: a pooled frame
/// holds its ``FrameStorage`` alive, a lent frame is counted inside its ``FrameLease``, which no longer admits it
/// once the owner has revoked it (and whose revocation waits for it to leave).
struct PlaneAddresses: @unchecked Sendable {
    let planes: VideoFramePlanes
}
