/// Why a video source could not start, or why it stopped.
public enum VideoCaptureError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No device at that path or index (or no video devices at all).
    case noSuchDevice(String)
    /// Another process holds the device.
    case deviceBusy(String)
    /// The device went away while capturing (ENODEV); capture has stopped.
    case deviceUnplugged(String)
    /// The device exists but may not be opened by this user.
    case permissionDenied(String)
    /// The device offers no format TokKit can convert (needs NV12, YUYV, MJPEG or I420).
    case noUsableFormat(String)
    /// No X display could be opened (DISPLAY unset or unreachable).
    case noDisplay(String)
    /// The window to capture does not exist (any more).
    case noSuchWindow(UInt)
    /// The requested region lies outside the screen or window, or is empty.
    case invalidRegion(x: Int, y: Int, width: Int, height: Int)
    /// A file to capture from is missing, unreadable or not in the expected format.
    case invalidFile(path: String, reason: String)
    /// `startCapture` was called before `initCapture`, or after `releaseCapture`.
    case notInitialized
    /// A system call failed.
    case systemError(operation: String, errno: Int32)

    /// A short English message naming the device, display, window or file.
    public var description: String {
        switch self {
        case let .noSuchDevice(d): "no such video device: \(d)"
        case let .deviceBusy(d): "video device busy: \(d)"
        case let .deviceUnplugged(d): "video device unplugged: \(d)"
        case let .permissionDenied(d): "permission denied: \(d)"
        case let .noUsableFormat(d): "no usable pixel format on \(d)"
        case let .noDisplay(d): "cannot open X display \(d.isEmpty ? "(DISPLAY unset)" : d)"
        case let .noSuchWindow(w): "no such window: 0x\(String(w, radix: 16))"
        case let .invalidRegion(x, y, w, h): "invalid capture region \(w)x\(h)+\(x)+\(y)"
        case let .invalidFile(p, r): "\(p): \(r)"
        case .notInitialized: "capture not initialized"
        case let .systemError(op, e): "\(op) failed: errno \(e)"
        }
    }
}
