extension VideoCaptureError {
    /// The typed error for a failed V4L2 call on the device at `path`.
    ///
    /// `ENOENT`/`ENXIO` (and `ENODEV` or `ENOTTY` while opening: no V4L2 driver behind the node) mean no such
    /// device; `ENODEV` later means it was unplugged; `EBUSY` busy; `EACCES`/`EPERM` permission denied; any
    /// other code is a ``systemError(operation:errno:)`` naming the call.
    static func v4l2(_ e: V4L2Errno, _ operation: String, path: String, opening: Bool = false) -> VideoCaptureError {
        switch e {
        case .noSuchFile, .noSuchDeviceOrAddress: .noSuchDevice(path)
        case .noDevice where opening, .notTTY where opening: .noSuchDevice(path)
        case .noDevice: .deviceUnplugged(path)
        case .busy: .deviceBusy(path)
        case .accessDenied, .notPermitted: .permissionDenied(path)
        default: .systemError(operation: "\(operation) \(path)", errno: e.rawValue)
        }
    }
}
