#if canImport(Glibc)
import Glibc
#endif

/// Reads the frames of a YUV4MPEG2 file, one at a time, into one buffer it owns and reuses.
///
/// ``init(path:)`` opens the file and parses its ``header``; ``readFrame()`` then fills the reader's buffer with the
/// next frame's planes, which ``frame(timestamp:)`` lends as a borrowed frame until the next ``readFrame()`` or
/// ``rewind()`` (then every copy of it expires: reads fail with ``VideoFrameError/expired``); ``rewind()`` goes
/// back to the first frame. Reading a frame allocates nothing.
///
/// Not thread-safe: one thread at a time (``Y4MFileCapturer`` reads on its capture thread).
public final class Y4MReader {
    /// The file read.
    public let path: String
    /// The stream header, parsed by ``init(path:)``: size, frame rate, chroma siting.
    public let header: Y4MStreamHeader
    /// Frames read since opening or the last ``rewind()``.
    public private(set) var framesRead = 0

    private let file: UnsafeMutablePointer<FILE>
    private let firstFrameOffset: off_t
    private let buffer: UnsafeMutableRawBufferPointer
    /// Lends ``buffer``; revoked before anything rewrites or frees it.
    private let lease = FrameLease()
    /// A borrowed frame over ``buffer`` under the current generation of ``lease``.
    private var current: VideoFrame

    /// The longest `FRAME` line accepted (parameters included).
    static let maximumFrameHeaderLength = 256

    /// Opens `path` and parses the stream header.
    ///
    /// - Throws: ``MediaFileError/noSuchFile(path:)``, ``MediaFileError/permissionDenied(path:)``,
    ///   ``MediaFileError/isDirectory(path:)`` or another system error when it cannot be read; the header's
    ///   format errors (see ``Y4MStreamHeader/init(parsing:)``) when it is not a Y4M file TokKit can play.
    public init(path: String) throws(MediaFileError) {
        guard let file = fopen(path, "rbe") else { throw .system("open", path: path, errno: errno) }
        var st = stat()
        if fstat(fileno(file), &st) == 0, st.st_mode & S_IFMT == S_IFDIR {
            fclose(file)
            throw .isDirectory(path: path)
        }
        var line: [UInt8] = []
        do throws(MediaFileError) {
            guard try Self.readLine(file, into: &line, limit: Y4MStreamHeader.maximumLength, path: path) else {
                throw line.starts(with: Y4MStreamHeader.signature)
                    ? MediaFileError.malformedY4MHeader("no end of line in the first \(Y4MStreamHeader.maximumLength) bytes")
                    : .notY4M
            }
            header = try Y4MStreamHeader(parsing: line)
        } catch {
            fclose(file)
            throw error
        }
        self.path = path
        self.file = file
        firstFrameOffset = ftello(file)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: header.frameSize, alignment: 64)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)  // what frame(timestamp:) shows before readFrame()
        self.buffer = buffer
        let y = header.width * header.height, c = header.chromaPlaneSize
        let base = UnsafeRawBufferPointer(buffer)
        do throws(VideoFrameError) {
            current = try VideoFrame(
                format: header.videoFormat, borrowing: .init(rebasing: base[0..<y]),
                .init(rebasing: base[y..<(y + c)]), .init(rebasing: base[(y + c)..<(y + 2 * c)]), lease: lease)
        } catch {
            // Unreachable for a parsed header (sizes 1...16384, planes cut to the exact sizes), kept typed.
            fclose(file)
            buffer.deallocate()
            throw .malformedY4MHeader("\(error)")
        }
    }

    deinit {
        fclose(file)
        lease.revoke()
        buffer.deallocate()
    }

    /// Reads the next frame into ``frame``. Returns `false`, reading nothing, at the clean end of the file.
    ///
    /// - Throws: ``MediaFileError/malformedY4MFrameHeader(frame:)`` when the next bytes are not a `FRAME` line,
    ///   ``MediaFileError/truncatedY4MFrame(frame:)`` when the file ends inside a frame, a system error when
    ///   reading fails.
    public func readFrame() throws(MediaFileError) -> Bool {
        try renew()
        let index = framesRead
        // "FRAME", then either the newline or parameters (ignored) up to it.
        var tag: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0)
        let got = withUnsafeMutableBytes(of: &tag) { fread($0.baseAddress, 1, 6, file) }
        if got < 6 {
            if ferror(file) != 0 { throw .system("read", path: path, errno: errno) }
            if got == 0 { return false }
            throw .truncatedY4MFrame(frame: index)
        }
        guard tag.0 == UInt8(ascii: "F"), tag.1 == UInt8(ascii: "R"), tag.2 == UInt8(ascii: "A"),
            tag.3 == UInt8(ascii: "M"), tag.4 == UInt8(ascii: "E")
        else { throw .malformedY4MFrameHeader(frame: index) }
        if tag.5 == UInt8(ascii: " ") {
            try skipFrameParameters(frame: index)
        } else if tag.5 != UInt8(ascii: "\n") {
            throw .malformedY4MFrameHeader(frame: index)
        }
        let n = fread(buffer.baseAddress, 1, buffer.count, file)
        if n < buffer.count {
            if ferror(file) != 0 { throw .system("read", path: path, errno: errno) }
            throw .truncatedY4MFrame(frame: index)
        }
        framesRead += 1
        return true
    }

    /// Goes back to the first frame.
    public func rewind() throws(MediaFileError) {
        try renew()
        guard fseeko(file, firstFrameOffset, SEEK_SET) == 0 else { throw .system("seek", path: path, errno: errno) }
        framesRead = 0
    }

    /// The frame last read, borrowing the reader's buffer: readable until the next ``readFrame()`` or ``rewind()``,
    /// and only while the reader lives; after that, every read of it (or of a copy of the value) throws
    /// ``VideoFrameError/expired``. ``VideoFrame/copy(using:)`` keeps it.
    public func frame(timestamp: Duration = MonotonicClock.now()) -> VideoFrame {
        var frame = current
        frame.timestamp = timestamp
        return frame
    }

    /// Expires every frame lent so far (waiting for a read in progress to finish), so that the buffer may be
    /// rewritten, and makes the frame that ``frame(timestamp:)`` lends next. Allocates nothing.
    private func renew() throws(MediaFileError) {
        lease.revoke()
        let y = header.width * header.height, c = header.chromaPlaneSize
        let base = UnsafeRawBufferPointer(buffer)
        do throws(VideoFrameError) {
            current = try VideoFrame(
                format: current.format, borrowing: .init(rebasing: base[0..<y]),
                .init(rebasing: base[y..<(y + c)]), .init(rebasing: base[(y + c)..<(y + 2 * c)]), lease: lease)
        } catch {
            // Unreachable: init(path:) accepted the same format and planes.
            throw .malformedY4MHeader("\(error)")
        }
    }

    private func skipFrameParameters(frame index: Int) throws(MediaFileError) {
        for _ in 0..<Self.maximumFrameHeaderLength {
            let c = getc_unlocked(file)
            if c == EOF {
                if ferror(file) != 0 { throw .system("read", path: path, errno: errno) }
                throw .truncatedY4MFrame(frame: index)
            }
            if c == 0x0A { return }
        }
        throw .malformedY4MFrameHeader(frame: index)
    }

    /// Reads bytes up to a newline (not stored) into `line`. Returns `false` at end of file or after `limit`
    /// bytes without one.
    private static func readLine(
        _ file: UnsafeMutablePointer<FILE>, into line: inout [UInt8], limit: Int, path: String
    ) throws(MediaFileError) -> Bool {
        for _ in 0..<limit {
            let c = getc_unlocked(file)
            if c == EOF {
                if ferror(file) != 0 { throw .system("read", path: path, errno: errno) }
                return false
            }
            if c == 0x0A { return true }
            line.append(UInt8(truncatingIfNeeded: c))
        }
        return false
    }
}
