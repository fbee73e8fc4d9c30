/// Which camera a ``CameraCapturer`` opens: a device node, or a position in
/// ``CameraCapturer/availableCameras(driver:)``.
///
/// A plain value, usable from any thread.
public enum CameraSelector: Hashable, Sendable, CustomStringConvertible {
    /// A device node such as `/dev/video0`.
    case path(String)
    /// The n-th camera listed by ``CameraCapturer/availableCameras(driver:)`` (0 is the first).
    case index(Int)

    /// The device node this selects, found with `driver` (an index is looked up in the current list).
    /// - Throws: ``VideoCaptureError/noSuchDevice(_:)`` when the index is out of range.
    func resolve(driver: any V4L2Driver) throws(VideoCaptureError) -> String {
        switch self {
        case let .path(path):
            return path
        case let .index(index):
            let cameras = CameraDiscovery.cameras(driver: driver)
            guard index >= 0, index < cameras.count else {
                throw .noSuchDevice(cameras.isEmpty ? "no video devices" : "camera #\(index) (\(cameras.count) found)")
            }
            return cameras[index].path
        }
    }

    /// The device path, or `camera #N`.
    public var description: String {
        switch self {
        case let .path(p): p
        case let .index(i): "camera #\(i)"
        }
    }
}
