#if canImport(Glibc)
import Glibc
#endif

/// Writes a whole file in one go (images, small outputs). Callable from any thread.
enum MediaFileIO {
    /// Creates or truncates `path` (mode 0644 before umask) and writes `bytes` to it.
    static func write(_ bytes: UnsafeRawBufferPointer, to path: String) throws(MediaFileError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .system("open", path: path, errno: errno) }
        var offset = 0
        while offset < bytes.count {  // every pass writes at least one byte or fails
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                close(fd)
                throw .system("write", path: path, errno: code)
            }
            offset += n
        }
        guard close(fd) == 0 else { throw .system("close", path: path, errno: errno) }
    }
}
