#if canImport(Glibc)
import Glibc
#endif

#if !_endian(little)
#error("TokKit's WAV writer stores samples as they are in memory: little-endian hosts only")
#endif

/// Writes 16-bit PCM samples to a new WAV file: the canonical 44-byte header first (sizes "unknown", all ones),
/// then the samples as they come (one `write` per call, no buffering, no allocation), and the real sizes fixed up
/// by ``updateHeader()`` / ``close()``. A file that was never fixed up (the process died) still reads back:
/// ``WAVReader`` takes the `data` chunk up to the end of the file.
///
/// Not thread-safe, and not `Sendable`: it belongs to one thread (or one lock) at a time.
public final class WAVWriter {
    /// The file written.
    public let path: String
    /// The rate and channels of the samples written, fixed in the header.
    public let format: AudioFormat
    /// Frames written so far.
    public var framesWritten: Int { dataBytes / (format.numberOfChannels * 2) }

    private var fd: Int32
    private var dataBytes = 0
    private static let maxDataBytes = Int(UInt32.max) - (WAVHeader.canonicalSize - 8)

    /// Creates (or truncates) `path` for samples in `format` (mode 0644).
    public init(path: String, format: AudioFormat) throws(WAVError) {
        guard format.numberOfChannels > 0, format.numberOfChannels <= Int(UInt16.max / 2) else {
            throw .invalidFormat("\(format.numberOfChannels) channels")
        }
        guard format.sampleRate > 0, format.sampleRate <= Int(UInt32.max / 4 / UInt32(format.numberOfChannels)) else {
            throw .invalidFormat("sample rate \(format.sampleRate)")
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw WAVError(errno: errno, operation: "open", path: path) }
        self.path = path
        self.format = format
        self.fd = fd
        let header = WAVHeader.canonicalBytes(format: format, dataByteCount: .max)
        let written = header.withUnsafeBytes { h in Result { () throws(WAVError) in try writeFully(h, at: 0) } }
        if case let .failure(error) = written {
            Glibc.close(fd)
            self.fd = -1
            throw error
        }
    }

    deinit { try? close() }

    /// Appends `samples` (interleaved; a trailing partial frame is written as given). Throws ``WAVError/tooLarge``
    /// instead of going past 4 GiB, and for write errors (disk full, closed).
    public func write(_ samples: UnsafeBufferPointer<Int16>) throws(WAVError) {
        guard fd >= 0 else { throw .systemError(operation: "write", errno: EBADF) }
        let bytes = UnsafeRawBufferPointer(samples)
        guard dataBytes + bytes.count <= Self.maxDataBytes else { throw .tooLarge }
        try writeFully(bytes, at: WAVHeader.canonicalSize + dataBytes)
        dataBytes += bytes.count
    }

    /// Writes the current sizes into the header, so the file is complete as it stands.
    public func updateHeader() throws(WAVError) {
        guard fd >= 0 else { return }
        var riff = UInt32(dataBytes + WAVHeader.canonicalSize - 8).littleEndian
        var data = UInt32(dataBytes).littleEndian
        try withUnsafeBytes(of: &riff) { (b) throws(WAVError) in try writeFully(b, at: 4) }
        try withUnsafeBytes(of: &data) { (b) throws(WAVError) in try writeFully(b, at: WAVHeader.canonicalSize - 4) }
    }

    /// Fixes up the header and closes the file. Idempotent.
    public func close() throws(WAVError) {
        guard fd >= 0 else { return }
        defer { Glibc.close(fd); fd = -1 }
        try updateHeader()
    }

    private func writeFully(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(WAVError) {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if n > 0 { done += n; continue }
            if n < 0 && errno == EINTR { continue }
            throw WAVError(errno: n < 0 ? errno : EIO, operation: "write", path: path)
        }
    }
}
