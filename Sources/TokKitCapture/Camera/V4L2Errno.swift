#if canImport(Glibc)
import Glibc
#endif

/// An `errno` value returned by a V4L2 system call (open, ioctl, mmap, poll), in the style of swift-system's
/// `Errno`: the raw code, with names for the codes a camera driver actually returns.
///
/// It is what a ``V4L2Driver`` throws. ``CameraCapturer`` maps it to ``VideoCaptureError`` for its callers.
/// A plain value: `Sendable`, usable from any thread.
public struct V4L2Errno: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The `errno` code.
    public let rawValue: Int32
    /// The error of `errno` code `rawValue`.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's current `errno`.
    public static var current: V4L2Errno { V4L2Errno(rawValue: errno) }

    /// No such file or directory: the device node does not exist.
    public static let noSuchFile = V4L2Errno(rawValue: ENOENT)
    /// The device is gone (unplugged); every call on an open descriptor fails with it.
    public static let noDevice = V4L2Errno(rawValue: ENODEV)
    /// Another descriptor or process owns the device's buffers.
    public static let busy = V4L2Errno(rawValue: EBUSY)
    /// Nothing is ready yet on a non-blocking descriptor (`DQBUF` with no filled buffer).
    public static let again = V4L2Errno(rawValue: EAGAIN)
    /// An argument (index, buffer type, memory type, request) is not valid now.
    public static let invalidArgument = V4L2Errno(rawValue: EINVAL)
    /// The file is not a V4L2 device (the ioctl is unknown to it).
    public static let notTTY = V4L2Errno(rawValue: ENOTTY)
    /// The caller may not open the device.
    public static let accessDenied = V4L2Errno(rawValue: EACCES)
    /// The operation is not permitted.
    public static let notPermitted = V4L2Errno(rawValue: EPERM)
    /// The descriptor is not open.
    public static let badFileDescriptor = V4L2Errno(rawValue: EBADF)
    /// A signal interrupted the call; it may be retried.
    public static let interrupted = V4L2Errno(rawValue: EINTR)
    /// No such device or address (a node without a driver behind it).
    public static let noSuchDeviceOrAddress = V4L2Errno(rawValue: ENXIO)
    /// Input/output error.
    public static let io = V4L2Errno(rawValue: EIO)

    /// The C library's message and the code, e.g. `Device or resource busy (errno 16)`.
    public var description: String {
        guard let s = strerror(rawValue) else { return "errno \(rawValue)" }
        return "\(String(cString: s)) (errno \(rawValue))"
    }
}
