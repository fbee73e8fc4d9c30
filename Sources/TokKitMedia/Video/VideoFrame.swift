/// One video image with its format, capture time and orientation, as the SDK's `OTVideoFrame`.
///
/// A frame is a small `Sendable` value. Its pixels live in one of two places:
/// - **pooled** memory from a ``VideoFramePool`` (or a private copy): kept alive as long as any copy of the
///   frame is; safe to keep, queue and send to other threads;
/// - **borrowed** memory the capturer owns (``init(format:borrowing:_:_:timestamp:orientation:)``): valid only for
///   the duration of the call the frame is handed to (``VideoCaptureConsumer/consumeFrame(_:)``,
///   ``VideoRender/renderVideoFrame(_:)``). A receiver that keeps it must ``copy(using:)`` it first.
///
/// Every initializer checks that each plane holds at least what the format demands, so no frame is ever
/// read out of bounds.
public struct VideoFrame: @unchecked Sendable {
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

    private let planes: VideoFramePlanes
    private let storage: FrameStorage?

    /// Wraps memory the caller owns, without copying. The frame is valid only during the call it is handed to.
    ///
    /// - Throws: ``VideoFrameError`` if the format is invalid, the plane count is wrong, or a plane is smaller
    ///   than the format demands. Nothing is read in that case.
    public init(
        format: VideoFormat, borrowing plane0: UnsafeRawBufferPointer, _ plane1: UnsafeRawBufferPointer? = nil,
        _ plane2: UnsafeRawBufferPointer? = nil, timestamp: Duration = MonotonicClock.now(),
        orientation: VideoOrientation = .up
    ) throws(VideoFrameError) {
        let given = plane2 != nil ? 3 : plane1 != nil ? 2 : 1
        let p = VideoFramePlanes(plane0, plane1 ?? .init(start: nil, count: 0), plane2 ?? .init(start: nil, count: 0), count: given)
        try Self.check(format, p)
        self.init(format: format, planes: p, storage: nil, timestamp: timestamp, orientation: orientation)
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

    init(format: VideoFormat, planes: VideoFramePlanes, storage: FrameStorage?, timestamp: Duration, orientation: VideoOrientation) {
        self.format = format
        self.planes = planes
        self.storage = storage
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

    /// Whether the frame points at memory it does not own (see the type's documentation).
    public var isBorrowed: Bool { storage == nil }

    /// Calls `body` with the frame's planes, keeping the memory alive meanwhile.
    public func withPlanes<R, E: Error>(_ body: (VideoFramePlanes) throws(E) -> R) throws(E) -> R {
        defer { withExtendedLifetime(storage) {} }
        return try body(planes)
    }

    /// Calls `body` with writable planes. Only for a frame fresh from a pool that nobody else has seen yet.
    public func withMutablePlanes<R, E: Error>(_ body: (MutableVideoFramePlanes) throws(E) -> R) throws(E) -> R {
        guard storage != nil else { preconditionFailure("\(VideoFrameError.notWritable)") }
        defer { withExtendedLifetime(storage) {} }
        return try body(MutableVideoFramePlanes(planes: planes))
    }

    /// Attaches up to ``maximumMetadataSize`` bytes of application metadata.
    public mutating func setMetadata(_ bytes: [UInt8]?) throws(VideoFrameError) {
        if let bytes, bytes.count > Self.maximumMetadataSize { throw .metadataTooLarge(size: bytes.count) }
        metadata = bytes
    }

    /// A copy in pooled memory: safe to keep after the call that handed this frame over returns.
    public func copy(using pool: VideoFramePool) throws(VideoFrameError) -> VideoFrame {
        let compressed = format.pixelFormat.isCompressed ? planes[0].count : 0
        var copy = try pool.makeFrame(format: format, compressedSize: compressed, timestamp: timestamp, orientation: orientation)
        copy.metadata = metadata
        copy.withMutablePlanes { dst in
            for i in 0..<planes.count {
                let n = format.pixelFormat.isCompressed ? planes[i].count : format.minimumSize(ofPlane: i)
                dst[i].baseAddress!.copyMemory(from: planes[i].baseAddress!, byteCount: n)
            }
        }
        return withExtendedLifetime(storage) { copy }
    }
}
