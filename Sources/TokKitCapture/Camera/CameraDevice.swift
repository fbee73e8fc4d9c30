/// A video capture device node as ``CameraCapturer/availableCameras(driver:)`` found it.
///
/// A snapshot taken when listed: a camera can disappear (or become busy) at any time after. A plain value,
/// usable from any thread.
public struct CameraDevice: Hashable, Sendable, CustomStringConvertible {
    /// The device node, e.g. `/dev/video0`.
    public var path: String
    /// The card name (`v4l2_capability.card`), e.g. "HD Pro Webcam C920".
    public var name: String
    /// The kernel driver (`v4l2_capability.driver`), e.g. "uvcvideo".
    public var driver: String
    /// Where the device sits (`v4l2_capability.bus_info`), e.g. "usb-0000:00:14.0-1".
    public var busInfo: String
    /// Every pixel format offered, in the driver's order.
    public var formats: [CameraFormat]
    /// Why the device could not be queried (busy, permission denied), or nil. Such a device is still listed,
    /// so that indexes stay stable, with empty ``name`` and ``formats``.
    public var unavailable: VideoCaptureError?

    /// A device as listed; ``CameraCapturer/availableCameras(driver:)`` builds these, tests and drivers may too.
    public init(
        path: String, name: String, driver: String, busInfo: String, formats: [CameraFormat],
        unavailable: VideoCaptureError? = nil
    ) {
        self.path = path
        self.name = name
        self.driver = driver
        self.busInfo = busInfo
        self.formats = formats
        self.unavailable = unavailable
    }

    /// `path: name (driver, bus)`, or `path: error` for a device that could not be queried.
    public var description: String {
        if let unavailable { return "\(path): \(unavailable)" }
        return "\(path): \(name) (\(driver), \(busInfo))"
    }
}
