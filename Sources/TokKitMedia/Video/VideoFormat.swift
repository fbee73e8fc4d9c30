/// The shape of the frames a capturer delivers or a renderer receives, as the SDK's `OTVideoFormat`.
///
/// A format is plain data: build one with ``i420(width:height:)``, ``nv12(width:height:)``,
/// ``argb(width:height:)`` (or the memberwise initializer for padded rows) and check it with ``validate()``.
public struct VideoFormat: Hashable, Sendable, CustomStringConvertible {
    /// The memory layout of the pixels.
    public var pixelFormat: PixelFormat
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Bytes per row of each plane (empty for MJPEG, whose rows are compressed).
    public var bytesPerRow: PlaneStrides
    /// The frame rate the source expects to deliver.
    public var estimatedFramesPerSecond: Double
    /// How long after the moment it shows a frame reaches the consumer.
    public var estimatedCaptureDelay: Duration

    /// A format with the given rows; `bytesPerRow` nil means tightly packed rows for `pixelFormat` and `width`.
    /// Nothing is checked here: call ``validate()``.
    public init(
        pixelFormat: PixelFormat, width: Int, height: Int, bytesPerRow: PlaneStrides? = nil,
        estimatedFramesPerSecond: Double = 30, estimatedCaptureDelay: Duration = .zero
    ) {
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow ?? Self.tightStrides(pixelFormat, width: width)
        self.estimatedFramesPerSecond = estimatedFramesPerSecond
        self.estimatedCaptureDelay = estimatedCaptureDelay
    }

    /// Planar 4:2:0 with tightly packed rows.
    public static func i420(width: Int, height: Int, fps: Double = 30) -> Self {
        Self(pixelFormat: .i420, width: width, height: height, estimatedFramesPerSecond: fps)
    }
    /// Semi-planar 4:2:0 with tightly packed rows.
    public static func nv12(width: Int, height: Int, fps: Double = 30) -> Self {
        Self(pixelFormat: .nv12, width: width, height: height, estimatedFramesPerSecond: fps)
    }
    /// Packed 32-bit ARGB with tightly packed rows.
    public static func argb(width: Int, height: Int, fps: Double = 30) -> Self {
        Self(pixelFormat: .argb, width: width, height: height, estimatedFramesPerSecond: fps)
    }

    /// The smallest strides for a pixel format and width.
    public static func tightStrides(_ format: PixelFormat, width: Int) -> PlaneStrides {
        let chroma = (width + 1) / 2
        switch format {
        case .argb, .bgra: return [width * 4]
        case .yuy2: return [chroma * 4]
        case .i420: return [width, chroma, chroma]
        case .nv12: return [width, chroma * 2]
        case .mjpeg: return []
        }
    }

    /// Rows in plane `plane` (chroma planes of 4:2:0 formats have half as many, rounded up).
    public func rows(inPlane plane: Int) -> Int {
        plane == 0 ? height : (height + 1) / 2
    }

    /// The fewest bytes plane `plane` must hold: stride × rows. For MJPEG, any non-empty buffer.
    public func minimumSize(ofPlane plane: Int) -> Int {
        pixelFormat.isCompressed ? 1 : bytesPerRow[plane] * rows(inPlane: plane)
    }

    /// Bytes a tightly packed frame of this format occupies (for MJPEG: the uncompressed I420 size, a bound).
    public var minimumFrameSize: Int {
        if pixelFormat.isCompressed { return VideoFormat.i420(width: width, height: height).minimumFrameSize }
        return (0..<bytesPerRow.count).reduce(0) { $0 + minimumSize(ofPlane: $1) }
    }

    /// Checks dimensions, plane count and strides; throws the first problem found.
    public func validate() throws(VideoFrameError) {
        guard width > 0, height > 0, width <= 16384, height <= 16384 else {
            throw .invalidDimensions(width: width, height: height)
        }
        if pixelFormat.isCompressed { return }
        guard bytesPerRow.count == pixelFormat.planeCount else {
            throw .wrongPlaneCount(expected: pixelFormat.planeCount, actual: bytesPerRow.count)
        }
        let tight = Self.tightStrides(pixelFormat, width: width)
        for plane in 0..<tight.count where bytesPerRow[plane] < tight[plane] {
            throw .strideTooSmall(plane: plane, stride: bytesPerRow[plane], minimum: tight[plane])
        }
    }

    /// The same format with tightly packed rows.
    public var tight: VideoFormat {
        var f = self
        f.bytesPerRow = Self.tightStrides(pixelFormat, width: width)
        return f
    }

    /// The same format with another pixel format, size kept, rows tightly packed.
    public func with(pixelFormat: PixelFormat) -> VideoFormat {
        var f = self
        f.pixelFormat = pixelFormat
        f.bytesPerRow = Self.tightStrides(pixelFormat, width: width)
        return f
    }

    /// The same format with another size, rows tightly packed.
    public func with(width: Int, height: Int) -> VideoFormat {
        var f = self
        f.width = width
        f.height = height
        f.bytesPerRow = Self.tightStrides(pixelFormat, width: width)
        return f
    }

    /// Pixel format, size and strides, e.g. `I420 640x480 strides [640, 320, 320]`.
    public var description: String { "\(pixelFormat) \(width)x\(height) strides \(bytesPerRow)" }
}
