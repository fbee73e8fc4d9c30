#if canImport(Glibc)
import Glibc
#endif

/// Why a media file (Y4M video, PNG or PGM image) could not be read or written.
///
/// System errors are mapped to the cases a caller can act on (missing file, permission, directory, disk
/// full); anything else keeps its `errno`. Format errors say what was wrong with the bytes. Nothing is
/// delivered or written past the point where one is thrown.
public enum MediaFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file (or, when writing, its directory) does not exist (`ENOENT`, `ENOTDIR`).
    case noSuchFile(path: String)
    /// The file may not be opened in that mode (`EACCES`, `EPERM`, `EROFS`).
    case permissionDenied(path: String)
    /// The path names a directory (`EISDIR`).
    case isDirectory(path: String)
    /// The disk or quota is full (`ENOSPC`, `EDQUOT`).
    case noSpace(path: String)
    /// Any other failing system call, with its `errno`.
    case systemError(operation: String, path: String, errno: Int32)

    /// The file does not start with the `YUV4MPEG2 ` signature.
    case notY4M
    /// The Y4M stream header is malformed (the reason names the offending tag).
    case malformedY4MHeader(String)
    /// The Y4M stream uses a colour space other than 4:2:0 8-bit (`C420jpeg`, `C420paldv`, `C420mpeg2`, `C420`).
    case unsupportedY4MColorspace(String)
    /// Frame `frame` (counted from 0) does not start with a valid `FRAME` line.
    case malformedY4MFrameHeader(frame: Int)
    /// The file ends inside frame `frame` (counted from 0).
    case truncatedY4MFrame(frame: Int)
    /// A frame or call does not fit the stream being written (another size or pixel format, header missing).
    case frameMismatch(String)
    /// The frame to write was borrowed and its owner has taken the memory back (``VideoFrameError/expired``):
    /// nothing of it was written.
    case expiredFrame

    /// A parameter is out of range, or a pixel buffer is shorter than the image it should hold (the text says
    /// which). Nothing was read or written.
    case invalidArgument(String)
    /// An image of that size cannot be written (empty, or larger than the format allows).
    case invalidImageSize(width: Int, height: Int)
    /// The renderer has not received any frame yet, so there is no image to write.
    case noImage
    /// The writer was closed before this call.
    case closed

    /// Maps the `errno` of a failed `operation` on `path` to its case.
    static func system(_ operation: String, path: String, errno code: Int32) -> MediaFileError {
        switch code {
        case ENOENT, ENOTDIR: .noSuchFile(path: path)
        case EACCES, EPERM, EROFS: .permissionDenied(path: path)
        case EISDIR: .isDirectory(path: path)
        case ENOSPC, EDQUOT: .noSpace(path: path)
        default: .systemError(operation: operation, path: path, errno: code)
        }
    }

    /// The path followed by what went wrong, as `strerror` would say it.
    public var description: String {
        switch self {
        case let .noSuchFile(p): "\(p): no such file or directory"
        case let .permissionDenied(p): "\(p): permission denied"
        case let .isDirectory(p): "\(p): is a directory"
        case let .noSpace(p): "\(p): no space left on device"
        case let .systemError(op, p, e): "\(p): \(op) failed: \(String(cString: strerror(e))) (errno \(e))"
        case .notY4M: "not a YUV4MPEG2 file (missing 'YUV4MPEG2 ' signature)"
        case let .malformedY4MHeader(r): "malformed YUV4MPEG2 header: \(r)"
        case let .unsupportedY4MColorspace(c): "unsupported YUV4MPEG2 colour space C\(c) (need 4:2:0 8-bit)"
        case let .malformedY4MFrameHeader(f): "frame \(f): missing or malformed FRAME header"
        case let .truncatedY4MFrame(f): "frame \(f): file ends inside the frame"
        case let .frameMismatch(r): "frame does not fit the stream: \(r)"
        case .expiredFrame: "the borrowed frame expired before it was written"
        case let .invalidArgument(r): "invalid argument: \(r)"
        case let .invalidImageSize(w, h): "cannot write an image of \(w)x\(h)"
        case .noImage: "no frame rendered yet"
        case .closed: "writer already closed"
        }
    }
}
