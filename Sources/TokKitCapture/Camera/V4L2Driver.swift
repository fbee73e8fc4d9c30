/// The system calls a camera needs, as one seam: device nodes, `open`, `ioctl`, `mmap`, `munmap`, `poll`
/// and `close` on V4L2 descriptors.
///
/// ``LibV4L2Driver`` (the default everywhere) passes each call to libv4l2 and the kernel. A test can pass a
/// simulated driver that behaves as the kernel does, so that ``CameraCapturer`` runs its real code path on a
/// machine without cameras. Implementations follow the kernel's contract call for call: the same `errno`
/// values (`ENOENT`, `EBUSY`, `EAGAIN`, `ENODEV`, `EINVAL`, ...), the same adjustments by `S_FMT`/`S_PARM`,
/// the same poll readiness.
///
/// ## Threading
/// Every method may be called from any thread, and two threads may use the same descriptor at once (the
/// capture thread polls and dequeues while the control thread issues `VIDIOC_STREAMOFF`), as the kernel
/// allows. Implementations are `Sendable` and do their own locking.
public protocol V4L2Driver: Sendable {
    /// Paths of the V4L2 device nodes present now (`/dev/video*`), in numeric order.
    func deviceNodes() -> [String]

    /// Opens a device node read-write (close-on-exec), non-blocking if asked.
    /// - Throws: `ENOENT` (no such node), `EACCES`/`EPERM` (not allowed), `EBUSY` (held exclusively), ...
    func open(_ path: String, nonBlocking: Bool) throws(V4L2Errno) -> Int32

    /// Issues `request` with `argument` pointing at the request's structure, which the call reads and fills.
    /// Interrupted calls (`EINTR`) are retried by the implementation.
    func ioctl(_ fd: Int32, _ request: V4L2Request, _ argument: UnsafeMutableRawPointer) throws(V4L2Errno)

    /// Maps `length` bytes of the buffer at `offset` (from `VIDIOC_QUERYBUF`) shared, read-write.
    func map(_ fd: Int32, length: Int, offset: Int) throws(V4L2Errno) -> UnsafeMutableRawPointer

    /// Unmaps a mapping made by ``map(_:length:offset:)``.
    func unmap(_ address: UnsafeMutableRawPointer, length: Int) throws(V4L2Errno)

    /// Waits up to `timeout` for the descriptor to become readable (or to report an error or hang-up).
    /// Returns the events; an empty set means the timeout passed. `EINTR` comes back as an empty set.
    func poll(_ fd: Int32, timeout: Duration) throws(V4L2Errno) -> V4L2PollEvents

    /// Closes a descriptor. Buffers it owns are freed once unmapped; errors are not reported (as `close(2)`
    /// on Linux, the descriptor is gone either way).
    func close(_ fd: Int32)
}

extension V4L2Driver {
    /// Issues `request` on a typed structure (`v4l2_capability`, `v4l2_buffer`, ...).
    @inline(__always)
    public func ioctl<T>(_ fd: Int32, _ request: V4L2Request, _ value: inout T) throws(V4L2Errno) {
        try withUnsafeMutablePointer(to: &value) { (p) throws(V4L2Errno) in
            try ioctl(fd, request, UnsafeMutableRawPointer(p))
        }
    }
}
