import CYUV

/// Pixel conversion, scaling and rotation of ``VideoFrame``s, all done by libyuv.
///
/// Supported conversions (same size): ARGB/BGRA ↔ I420, ARGB/BGRA ↔ NV12, NV12 ↔ I420, YUY2 → I420,
/// MJPEG → I420, YUY2/MJPEG → NV12, and copies within one format. Scaling (box filter) and rotation work on I420.
///
/// Results come from the converter's ``VideoFramePool``: a steady stream of conversions allocates nothing.
/// Sources are read through ``VideoFrame/withPlanes(_:)``: a borrowed source whose owner has taken its memory back
/// fails with ``VideoFrameError/expired``, and nothing is converted.
/// A converter keeps scratch memory for two-step conversions, so it belongs to one thread at a time
/// (it is deliberately not `Sendable`); give each pipeline thread its own.
public final class VideoConverter {
    /// Where converted, scaled and rotated frames come from; its capacity bounds how many results can be held at once.
    public let pool: VideoFramePool
    private var scratch: VideoFramePool

    /// A converter whose results come from `pool` (four buffers by default).
    public init(pool: VideoFramePool = VideoFramePool()) {
        self.pool = pool
        self.scratch = VideoFramePool(capacity: 1)
    }

    /// Whether ``convert(_:into:)`` can turn `source` into `target`.
    public static func canConvert(_ source: PixelFormat, to target: PixelFormat) -> Bool {
        switch (source, target) {
        case (.argb, .i420), (.bgra, .i420), (.argb, .nv12), (.bgra, .nv12),
            (.i420, .argb), (.i420, .bgra), (.nv12, .argb), (.nv12, .bgra),
            (.nv12, .i420), (.i420, .nv12), (.yuy2, .i420), (.mjpeg, .i420),
            (.argb, .bgra), (.bgra, .argb):
            return true
        case (.yuy2, .nv12), (.mjpeg, .nv12):
            return true
        case let (s, t) where s == t && !s.isCompressed:
            return true
        default:
            return false
        }
    }

    /// `frame` in `target` pixel format, same size, in pooled memory (timestamp, orientation and metadata kept).
    public func convert(_ frame: VideoFrame, to target: PixelFormat) throws(VideoFrameError) -> VideoFrame {
        guard Self.canConvert(frame.format.pixelFormat, to: target) else {
            throw .unsupportedConversion(from: frame.format.pixelFormat, to: target)
        }
        var out = try pool.makeFrame(
            format: frame.format.with(pixelFormat: target), timestamp: frame.timestamp, orientation: frame.orientation)
        try convert(frame, into: out)
        try out.setMetadata(frame.metadata)
        return out
    }

    /// Converts `source` into `destination`, a frame of the same size fresh from a pool.
    public func convert(_ source: VideoFrame, into destination: VideoFrame) throws(VideoFrameError) {
        let from = source.format.pixelFormat, to = destination.format.pixelFormat
        guard Self.canConvert(from, to: to) else { throw .unsupportedConversion(from: from, to: to) }
        guard !destination.isBorrowed else { throw .notWritable }
        guard source.format.width == destination.format.width, source.format.height == destination.format.height else {
            throw .invalidDimensions(width: destination.format.width, height: destination.format.height)
        }
        if (from, to) == (.bgra, .nv12) {
            // libyuv has no direct path: go through I420 in scratch memory.
            let mid = try scratch.makeFrame(format: source.format.with(pixelFormat: .i420))
            try convert(source, into: mid)
            try convert(mid, into: destination)
            return
        }
        let w = Int32(source.format.width), h = Int32(source.format.height)
        let ss = source.format.bytesPerRow, ds = destination.format.bytesPerRow
        let rc: Int32 = try source.withPlanes { src in
            destination.withMutablePlanes { dst in
                func s(_ i: Int) -> UnsafePointer<UInt8> { src[i].baseAddress!.assumingMemoryBound(to: UInt8.self) }
                func d(_ i: Int) -> UnsafeMutablePointer<UInt8> { dst[i].baseAddress!.assumingMemoryBound(to: UInt8.self) }
                func si(_ i: Int) -> Int32 { Int32(ss[i]) }
                func di(_ i: Int) -> Int32 { Int32(ds[i]) }
                switch (from, to) {
                case (.argb, .i420): return ARGBToI420(s(0), si(0), d(0), di(0), d(1), di(1), d(2), di(2), w, h)
                case (.bgra, .i420): return BGRAToI420(s(0), si(0), d(0), di(0), d(1), di(1), d(2), di(2), w, h)
                case (.argb, .nv12): return ARGBToNV12(s(0), si(0), d(0), di(0), d(1), di(1), w, h)
                case (.i420, .argb): return I420ToARGB(s(0), si(0), s(1), si(1), s(2), si(2), d(0), di(0), w, h)
                case (.i420, .bgra): return I420ToBGRA(s(0), si(0), s(1), si(1), s(2), si(2), d(0), di(0), w, h)
                case (.nv12, .argb): return NV12ToARGB(s(0), si(0), s(1), si(1), d(0), di(0), w, h)
                case (.nv12, .bgra):
                    let rc = NV12ToARGB(s(0), si(0), s(1), si(1), d(0), di(0), w, h)
                    return rc != 0 ? rc : ARGBToBGRA(d(0), di(0), d(0), di(0), w, h)
                case (.nv12, .i420): return NV12ToI420(s(0), si(0), s(1), si(1), d(0), di(0), d(1), di(1), d(2), di(2), w, h)
                case (.i420, .nv12): return I420ToNV12(s(0), si(0), s(1), si(1), s(2), si(2), d(0), di(0), d(1), di(1), w, h)
                case (.yuy2, .i420): return YUY2ToI420(s(0), si(0), d(0), di(0), d(1), di(1), d(2), di(2), w, h)
                case (.mjpeg, .i420):
                    return MJPGToI420(s(0), src[0].count, d(0), di(0), d(1), di(1), d(2), di(2), w, h, w, h)
                case (.yuy2, .nv12): return YUY2ToNV12(s(0), si(0), d(0), di(0), d(1), di(1), w, h)
                case (.mjpeg, .nv12): return MJPGToNV12(s(0), src[0].count, d(0), di(0), d(1), di(1), w, h, w, h)
                case (.argb, .bgra): return ARGBToBGRA(s(0), si(0), d(0), di(0), w, h)
                case (.bgra, .argb): return BGRAToARGB(s(0), si(0), d(0), di(0), w, h)
                case (.i420, .i420): return I420Copy(s(0), si(0), s(1), si(1), s(2), si(2), d(0), di(0), d(1), di(1), d(2), di(2), w, h)
                case (.nv12, .nv12): return NV12Copy(s(0), si(0), s(1), si(1), d(0), di(0), d(1), di(1), w, h)
                case (.argb, .argb), (.bgra, .bgra): return ARGBCopy(s(0), si(0), d(0), di(0), w, h)
                case (.yuy2, .yuy2):
                    let rows = Int(h), rowBytes = Int(ss[0] < ds[0] ? ss[0] : ds[0])
                    for r in 0..<rows { (d(0) + r * Int(ds[0])).update(from: s(0) + r * Int(ss[0]), count: rowBytes) }
                    return 0
                default: return -1
                }
            }
        }
        guard rc == 0 else { throw .conversionFailed(operation: "\(from)→\(to)", code: rc) }
    }

    /// An I420 `frame` scaled to `width` × `height` with libyuv's box filter, in pooled memory.
    public func scale(_ frame: VideoFrame, width: Int, height: Int) throws(VideoFrameError) -> VideoFrame {
        guard frame.format.pixelFormat == .i420 else { throw .unsupportedConversion(from: frame.format.pixelFormat, to: .i420) }
        let out = try pool.makeFrame(
            format: frame.format.with(width: width, height: height), timestamp: frame.timestamp, orientation: frame.orientation)
        let ss = frame.format.bytesPerRow, ds = out.format.bytesPerRow
        let rc: Int32 = try frame.withPlanes { src in
            out.withMutablePlanes { dst in
                I420Scale(
                    src[0].u8, Int32(ss[0]), src[1].u8, Int32(ss[1]), src[2].u8, Int32(ss[2]),
                    Int32(frame.format.width), Int32(frame.format.height),
                    dst[0].u8, Int32(ds[0]), dst[1].u8, Int32(ds[1]), dst[2].u8, Int32(ds[2]),
                    Int32(width), Int32(height), kFilterBox)
            }
        }
        guard rc == 0 else { throw .conversionFailed(operation: "I420Scale", code: rc) }
        return out
    }

    /// An I420 `frame` rotated by its ``VideoFrame/orientation`` so that it shows upright (orientation `.up`).
    public func rotateUpright(_ frame: VideoFrame) throws(VideoFrameError) -> VideoFrame {
        guard frame.format.pixelFormat == .i420 else { throw .unsupportedConversion(from: frame.format.pixelFormat, to: .i420) }
        guard frame.orientation != .up || frame.isBorrowed else { return frame }
        let (w, h) = frame.orientation.swapsDimensions
            ? (frame.format.height, frame.format.width) : (frame.format.width, frame.format.height)
        let out = try pool.makeFrame(format: frame.format.with(width: w, height: h), timestamp: frame.timestamp, orientation: .up)
        let ss = frame.format.bytesPerRow, ds = out.format.bytesPerRow
        let mode = RotationModeEnum(rawValue: UInt32(frame.orientation.clockwiseDegrees))
        let rc: Int32 = try frame.withPlanes { src in
            out.withMutablePlanes { dst in
                I420Rotate(
                    src[0].u8, Int32(ss[0]), src[1].u8, Int32(ss[1]), src[2].u8, Int32(ss[2]),
                    dst[0].u8, Int32(ds[0]), dst[1].u8, Int32(ds[1]), dst[2].u8, Int32(ds[2]),
                    Int32(frame.format.width), Int32(frame.format.height), mode)
            }
        }
        guard rc == 0 else { throw .conversionFailed(operation: "I420Rotate", code: rc) }
        return out
    }
}

extension UnsafeRawBufferPointer {
    fileprivate var u8: UnsafePointer<UInt8> { baseAddress!.assumingMemoryBound(to: UInt8.self) }
}

extension UnsafeMutableRawBufferPointer {
    fileprivate var u8: UnsafeMutablePointer<UInt8> { baseAddress!.assumingMemoryBound(to: UInt8.self) }
}
