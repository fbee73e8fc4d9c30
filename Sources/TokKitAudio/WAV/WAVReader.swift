#if canImport(Glibc)
import Glibc
#endif

#if !_endian(little)
#error("TokKit's WAV reader hands out the file's little-endian samples as they are: little-endian hosts only")
#endif

/// Reads the 16-bit PCM samples of a WAV file, period by period, straight from the file (`pread`, no buffering,
/// no allocation per read).
///
/// Not thread-safe: one thread at a time (a device hands it from its control thread to its capture thread).
public final class WAVReader {
    /// The file read.
    public let path: String
    /// Format and position of the samples.
    public let header: WAVHeader
    /// Rate and channels of the samples.
    public var format: AudioFormat { header.format }
    /// Frames in the file.
    public var frameCount: Int { header.frameCount }
    /// Frames read since the start (or the last ``rewind()``).
    public private(set) var framePosition = 0

    private let fd: Int32

    /// Opens `path` and parses its header. Throws ``WAVError`` for a missing, unreadable or non-16-bit-PCM file.
    public init(path: String) throws(WAVError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw WAVError(errno: errno, operation: "open", path: path) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let e = errno
            close(fd)
            throw WAVError(errno: e, operation: "fstat", path: path)
        }
        do {
            header = try WAVHeader.parse(fileSize: Int(st.st_size)) { (offset, buffer) throws(WAVError) in
                try Self.readFully(fd, buffer, at: offset, path: path)
            }
        } catch {
            close(fd)
            throw error
        }
        self.path = path
        self.fd = fd
    }

    deinit { close(fd) }

    /// Whether every frame has been read.
    public var isAtEnd: Bool { framePosition >= frameCount }

    /// Reads the next whole frames into `buffer` (up to `buffer.count / channels`), returns how many; 0 at the end.
    /// Samples past the returned frames are left as they were.
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws(WAVError) -> Int {
        let frameBytes = header.bytesPerFrame
        let frames = min(buffer.count / format.numberOfChannels, frameCount - framePosition)
        guard frames > 0, let base = buffer.baseAddress else { return 0 }
        let raw = UnsafeMutableRawBufferPointer(start: base, count: frames * frameBytes)
        let got = try Self.readFully(fd, raw, at: header.dataOffset + framePosition * frameBytes, path: path)
        let whole = got / frameBytes   // a file cut short after parsing ends early
        framePosition += whole
        if whole < frames { framePosition = frameCount }
        return whole
    }

    /// Goes back to the first frame.
    public func rewind() { framePosition = 0 }

    /// `pread` until `buffer` is full or the file ends; returns the bytes read.
    private static func readFully(
        _ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int, path: String
    ) throws(WAVError) -> Int {
        var done = 0
        while done < buffer.count {
            let n = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if n > 0 { done += n; continue }
            if n == 0 { break }
            if errno == EINTR { continue }
            throw WAVError(errno: errno, operation: "pread", path: path)
        }
        return done
    }
}
