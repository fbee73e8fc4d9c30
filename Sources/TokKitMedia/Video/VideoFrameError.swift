/// Why a video frame, format or conversion was rejected. Nothing is read or written when one is thrown.
public enum VideoFrameError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Width or height is not positive, or too large to address.
    case invalidDimensions(width: Int, height: Int)
    /// The format lists `actual` strides where its pixel format has `expected` planes.
    case wrongPlaneCount(expected: Int, actual: Int)
    /// A plane's stride is shorter than one row of pixels.
    case strideTooSmall(plane: Int, stride: Int, minimum: Int)
    /// A plane holds fewer bytes than its format demands.
    case planeTooSmall(plane: Int, size: Int, minimum: Int)
    /// libyuv has no path between these formats (or the operation needs another format).
    case unsupportedConversion(from: PixelFormat, to: PixelFormat)
    /// libyuv refused the operation (for MJPEG: the data is not a decodable JPEG of that size).
    case conversionFailed(operation: String, code: Int32)
    /// Every buffer of the pool is still held by someone: the frame was dropped.
    case poolExhausted(capacity: Int)
    /// Frame metadata is limited to ``VideoFrame/maximumMetadataSize`` bytes.
    case metadataTooLarge(size: Int)
    /// The frame borrows memory it does not own; only pooled frames can be written.
    case notWritable
    /// The frame borrowed memory its owner has since taken back (its ``FrameLease`` was revoked, normally when
    /// the call it was handed to returned): nothing was read. Copy a borrowed frame with
    /// ``VideoFrame/copy(using:)`` before returning to keep its pixels.
    case expired

    /// A short English message with the sizes involved.
    public var description: String {
        switch self {
        case let .invalidDimensions(w, h): "invalid frame dimensions \(w)x\(h)"
        case let .wrongPlaneCount(e, a): "format needs \(e) plane(s), got \(a)"
        case let .strideTooSmall(p, s, m): "plane \(p): stride \(s) is below the row size \(m)"
        case let .planeTooSmall(p, s, m): "plane \(p): \(s) bytes, format needs at least \(m)"
        case let .unsupportedConversion(f, t): "no conversion from \(f) to \(t)"
        case let .conversionFailed(op, code): "\(op) failed (libyuv returned \(code))"
        case let .poolExhausted(c): "all \(c) pooled frame buffers are in use"
        case let .metadataTooLarge(s): "metadata of \(s) bytes exceeds \(VideoFrame.maximumMetadataSize)"
        case .notWritable: "frame memory is borrowed and cannot be written"
        case .expired: "borrowed frame expired: its owner took the memory back (copy a frame to keep it)"
        }
    }
}
