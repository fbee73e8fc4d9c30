#if canImport(Glibc)
import Glibc
#endif

/// Writes I420 frames to a YUV4MPEG2 file that ffmpeg, ffprobe, mpv and ``Y4MReader`` read.
///
/// ``init(path:)`` creates (or truncates) the file; ``writeHeader(_:)`` writes the stream header once, then
/// ``write(_:)`` appends one `FRAME` line and the Y, U and V planes per frame (row padding dropped).
/// ``close()`` flushes and closes, reporting a late write error. Writing a frame allocates nothing.
///
/// Not thread-safe: one thread at a time (``FileRenderer`` writes on its own writer thread).
public final class Y4MWriter {
    /// The file written.
    public let path: String
    /// The header written, once ``writeHeader(_:)`` has been called.
    public private(set) var header: Y4MStreamHeader?
    /// Frames written so far.
    public private(set) var framesWritten = 0
    private var file: UnsafeMutablePointer<FILE>?

    /// Creates or truncates `path`.
    ///
    /// - Throws: ``MediaFileError/noSuchFile(path:)`` when the directory does not exist,
    ///   ``MediaFileError/permissionDenied(path:)``, ``MediaFileError/isDirectory(path:)`` or another system error.
    public init(path: String) throws(MediaFileError) {
        guard let file = fopen(path, "wbe") else { throw .system("open", path: path, errno: errno) }
        self.path = path
        self.file = file
    }

    deinit {
        if let file { fclose(file) }
    }

    /// Writes the stream header. Must come once, before the first frame.
    public func writeHeader(_ header: Y4MStreamHeader) throws(MediaFileError) {
        guard let file else { throw .closed }
        guard self.header == nil else { throw .frameMismatch("the stream header was already written") }
        guard fputs(header.description, file) >= 0 else { throw .system("write", path: path, errno: errno) }
        self.header = header
    }

    /// Appends `frame`, which must be I420 of the header's size (any strides).
    ///
    /// - Throws: ``MediaFileError/frameMismatch(_:)`` for another format or size, ``MediaFileError/expiredFrame``
    ///   for a borrowed frame whose owner has taken it back (nothing is written for either),
    ///   ``MediaFileError/closed`` after ``close()``, a system error (e.g. ``MediaFileError/noSpace(path:)``).
    public func write(_ frame: VideoFrame) throws(MediaFileError) {
        guard let file else { throw .closed }
        guard let header else { throw .frameMismatch("frame written before the stream header") }
        let f = frame.format
        guard f.pixelFormat == .i420, f.width == header.width, f.height == header.height else {
            throw .frameMismatch("stream is I420 \(header.width)x\(header.height), frame is \(f)")
        }
        try frame.withPlanes(ifExpired: MediaFileError.expiredFrame) { planes throws(MediaFileError) in
            try put(file, UnsafeRawBufferPointer(start: Self.frameTag.utf8Start, count: Self.frameTag.utf8CodeUnitCount))
            for plane in 0..<3 {
                let rowBytes = plane == 0 ? f.width : (f.width + 1) / 2
                let stride = f.bytesPerRow[plane]
                let rows = f.rows(inPlane: plane)
                if stride == rowBytes {
                    try put(file, UnsafeRawBufferPointer(rebasing: planes[plane][0..<(rowBytes * rows)]))
                } else {
                    for r in 0..<rows {
                        try put(file, UnsafeRawBufferPointer(rebasing: planes[plane][(r * stride)..<(r * stride + rowBytes)]))
                    }
                }
            }
        }
        framesWritten += 1
    }

    /// Flushes and closes the file. Idempotent.
    ///
    /// - Throws: the error of the final flush (e.g. ``MediaFileError/noSpace(path:)``).
    public func close() throws(MediaFileError) {
        guard let file else { return }
        self.file = nil
        let flushed = fflush(file) == 0
        let flushErrno = errno
        let closed = fclose(file) == 0
        let closeErrno = errno
        if !flushed { throw .system("write", path: path, errno: flushErrno) }
        if !closed { throw .system("close", path: path, errno: closeErrno) }
    }

    private static let frameTag: StaticString = "FRAME\n"

    private func put(_ file: UnsafeMutablePointer<FILE>, _ bytes: UnsafeRawBufferPointer) throws(MediaFileError) {
        guard !bytes.isEmpty else { return }
        guard fwrite(bytes.baseAddress, 1, bytes.count, file) == bytes.count else {
            throw .system("write", path: path, errno: errno)
        }
    }
}
