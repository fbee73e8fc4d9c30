import TokKitCapture

/// A camera the ``SimulatedV4L2Driver`` exposes at a device path: what it answers to `VIDIOC_QUERYCAP` and
/// lists through the `ENUM_*` ioctls, and how it misbehaves on purpose. A plain value.
struct SimulatedCamera: Sendable {
    var path: String
    var card = "TokKit Simulated Camera"
    var driver = "tokkit-sim"
    var busInfo = "platform:tokkit-sim"
    /// Formats, sizes and intervals in the order the driver lists them; the first of each is the default.
    var formats: [CameraFormat]
    /// Drawn into every frame (see ``SimulatedPattern``), to tell cameras apart.
    var marker: UInt8 = 0
    /// A UVC metadata node: `device_caps` says `META_CAPTURE`, not `VIDEO_CAPTURE`.
    var isMetadataNode = false
    /// `open` fails with `EACCES`.
    var permissionDenied = false
    /// `bytesperline` is rounded up to this (some drivers pad rows).
    var rowAlignment = 1
    /// Every n-th frame comes back flagged `V4L2_BUF_FLAG_ERROR` (as UVC does for damaged frames).
    var corruptEvery: Int?

    /// A typical USB webcam: YUYV up to 640x480 at 30 fps (1280x720 only at 10), MJPEG up to 1280x720 at 30,
    /// intervals in UVC's 100 ns units.
    static func webcam(path: String, marker: UInt8 = 0) -> SimulatedCamera {
        let fast = [uvc(333_333), uvc(666_666)]  // 30.0003 and 15 fps
        return SimulatedCamera(
            path: path, card: "Simulated Webcam \(marker)", driver: "uvcvideo", busInfo: "usb-sim-\(marker)",
            formats: [
                CameraFormat(fourCC: .yuyv, name: "YUYV 4:2:2", sizes: [
                    CameraFrameSize(width: 640, height: 480, intervals: fast),
                    CameraFrameSize(width: 320, height: 240, intervals: fast),
                    CameraFrameSize(width: 1280, height: 720, intervals: [uvc(1_000_000)]),
                ]),
                CameraFormat(fourCC: .mjpeg, name: "Motion-JPEG", isCompressed: true, sizes: [
                    CameraFrameSize(width: 1280, height: 720, intervals: fast),
                    CameraFrameSize(width: 640, height: 480, intervals: fast),
                    CameraFrameSize(width: 320, height: 240, intervals: fast),
                ]),
            ],
            marker: marker)
    }

    /// A camera with one format and size at `fps`, for tests that want frames quickly.
    static func simple(path: String, fourCC: FourCC = .nv12, width: Int = 320, height: Int = 240, fps: UInt32 = 60, marker: UInt8 = 0) -> SimulatedCamera {
        SimulatedCamera(
            path: path, card: "Simulated \(fourCC) \(marker)",
            formats: [CameraFormat(
                fourCC: fourCC, name: "\(fourCC)", isCompressed: fourCC == .mjpeg,
                sizes: [CameraFrameSize(width: width, height: height, intervals: [.fps(fps)])])],
            marker: marker)
    }

    /// A UVC interval, in 100 ns units.
    static func uvc(_ hundredNanoseconds: UInt32) -> CameraFrameInterval {
        CameraFrameInterval(numerator: hundredNanoseconds, denominator: 10_000_000)
    }
}
