#if canImport(Glibc)
import Glibc
#endif
import CV4L2

/// The real ``V4L2Driver``: libv4l2 (`v4l2_open`, `v4l2_ioctl`, `v4l2_mmap`, ...) over the kernel's device
/// nodes. The default driver of every camera API in TokKit.
///
/// libv4l2 passes calls straight to the kernel except for formats it emulates (flagged
/// `V4L2_FMT_FLAG_EMULATED`), which ``CameraCapturer`` never picks. Stateless: `Sendable`, any thread.
public struct LibV4L2Driver: V4L2Driver {
    /// Where device nodes are looked for (`/dev`).
    public let deviceDirectory: String

    /// A driver looking for `video*` nodes in `deviceDirectory`.
    public init(deviceDirectory: String = "/dev") {
        self.deviceDirectory = deviceDirectory
    }

    /// Where `d_name` sits in a `dirent` (a stored field: the offset is always known; 19 on glibc x86_64).
    private static let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 19

    /// The `video<N>` nodes of ``deviceDirectory``, in numeric order (`video2` before `video10`); empty if it cannot
    /// be read.
    public func deviceNodes() -> [String] {
        guard let dir = opendir(deviceDirectory) else { return [] }
        defer { closedir(dir) }
        var found: [(number: Int, path: String)] = []
        while let entry = readdir(dir) {
            // Read in place, up to its NUL: the record is only as long as its name, so copying the 256-byte
            // `d_name` field (`entry.pointee.d_name`) read past the last record of readdir's buffer (AddressSanitizer).
            let name = String(cString: UnsafeRawPointer(entry).advanced(by: Self.nameOffset)
                .assumingMemoryBound(to: CChar.self))
            guard name.hasPrefix("video"), let number = Int(name.dropFirst(5)), number >= 0 else { continue }
            found.append((number, deviceDirectory + "/" + name))
        }
        return found.sorted { $0.number < $1.number }.map(\.path)
    }

    /// `v4l2_open` read-write and close-on-exec, non-blocking if asked.
    /// - Throws: the `errno` of the failed open.
    public func open(_ path: String, nonBlocking: Bool) throws(V4L2Errno) -> Int32 {
        let fd = tk_v4l2_open(path, O_RDWR | O_CLOEXEC | (nonBlocking ? O_NONBLOCK : 0))
        guard fd >= 0 else { throw .current }
        return fd
    }

    /// `v4l2_ioctl`, retried while interrupted by a signal (up to 64 times).
    /// - Throws: the `errno` of the failed call.
    public func ioctl(_ fd: Int32, _ request: V4L2Request, _ argument: UnsafeMutableRawPointer) throws(V4L2Errno) {
        for _ in 0..<Self.maximumRetries {
            if tk_v4l2_ioctl(fd, request.rawValue, argument) == 0 { return }
            let e = V4L2Errno.current
            guard e == .interrupted else { throw e }
        }
        throw .interrupted
    }

    /// `v4l2_mmap`, shared and read-write.
    /// - Throws: the `errno` of the failed mapping.
    public func map(_ fd: Int32, length: Int, offset: Int) throws(V4L2Errno) -> UnsafeMutableRawPointer {
        let p = v4l2_mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, Int64(offset))
        guard let p, p != UnsafeMutableRawPointer(bitPattern: -1) else { throw .current }
        return p
    }

    /// `v4l2_munmap`.
    /// - Throws: the `errno` of the failed call.
    public func unmap(_ address: UnsafeMutableRawPointer, length: Int) throws(V4L2Errno) {
        guard v4l2_munmap(address, length) == 0 else { throw .current }
    }

    /// `poll(2)` for input, at millisecond resolution; an interrupted wait returns an empty set.
    /// - Throws: the `errno` of any other failure.
    public func poll(_ fd: Int32, timeout: Duration) throws(V4L2Errno) -> V4L2PollEvents {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN | POLLRDNORM), revents: 0)
        let ms = Int32(clamping: max(0, timeout.nanoseconds / 1_000_000))
        let n = Glibc.poll(&pfd, 1, ms)
        if n < 0 {
            let e = V4L2Errno.current
            if e == .interrupted { return [] }
            throw e
        }
        return n == 0 ? [] : V4L2PollEvents(rawValue: pfd.revents)
    }

    /// `v4l2_close`, ignoring its result.
    public func close(_ fd: Int32) {
        _ = v4l2_close(fd)
    }

    /// How many times an ioctl interrupted by a signal is retried.
    static let maximumRetries = 64
}
