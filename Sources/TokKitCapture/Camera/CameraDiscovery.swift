import CV4L2

/// Reads what a V4L2 node is and offers: `VIDIOC_QUERYCAP`, then `VIDIOC_ENUM_FMT`, `VIDIOC_ENUM_FRAMESIZES`
/// and `VIDIOC_ENUM_FRAMEINTERVALS` for every format and size.
///
/// Stateless; any thread. Every enumeration is bounded, so a driver that never answers `EINVAL` cannot
/// keep it looping.
enum CameraDiscovery {
    static let maximumFormats = 64
    static let maximumSizes = 256
    static let maximumIntervals = 64

    /// Every video capture node the driver has, in node order. Nodes that are not video capture devices
    /// (UVC metadata nodes, codecs, radios) are left out; nodes that cannot be opened are listed with
    /// ``CameraDevice/unavailable`` set.
    static func cameras(driver: any V4L2Driver) -> [CameraDevice] {
        var result: [CameraDevice] = []
        for path in driver.deviceNodes() {
            let fd: Int32
            do { fd = try driver.open(path, nonBlocking: true) } catch {
                let reason = VideoCaptureError.v4l2(error, "open", path: path, opening: true)
                switch reason {
                case .deviceBusy, .permissionDenied:
                    result.append(CameraDevice(path: path, name: "", driver: "", busInfo: "", formats: [], unavailable: reason))
                default:
                    continue  // vanished since listed, or no driver behind the node
                }
                continue
            }
            defer { driver.close(fd) }
            if let camera = try? describe(fd: fd, path: path, driver: driver) { result.append(camera) }
        }
        return result
    }

    /// What the node open at `fd` is and offers, or nil when it is not a video capture device.
    static func describe(fd: Int32, path: String, driver: any V4L2Driver) throws(V4L2Errno) -> CameraDevice? {
        var cap = v4l2_capability()
        try driver.ioctl(fd, .queryCapabilities, &cap)
        let caps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
        guard caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0, caps & UInt32(V4L2_CAP_STREAMING) != 0 else { return nil }
        return CameraDevice(
            path: path, name: cString(cap.card), driver: cString(cap.driver), busInfo: cString(cap.bus_info),
            formats: try formats(fd: fd, driver: driver))
    }

    static func formats(fd: Int32, driver: any V4L2Driver) throws(V4L2Errno) -> [CameraFormat] {
        var result: [CameraFormat] = []
        for index in 0..<maximumFormats {
            var desc = v4l2_fmtdesc()
            desc.index = UInt32(index)
            desc.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            do { try driver.ioctl(fd, .enumerateFormats, &desc) } catch {
                if error == .invalidArgument { break }
                throw error
            }
            let fourCC = FourCC(rawValue: desc.pixelformat)
            result.append(CameraFormat(
                fourCC: fourCC, name: cString(desc.description),
                isCompressed: desc.flags & UInt32(V4L2_FMT_FLAG_COMPRESSED) != 0,
                isEmulated: desc.flags & UInt32(V4L2_FMT_FLAG_EMULATED) != 0,
                sizes: try sizes(fd: fd, fourCC: fourCC, driver: driver)))
        }
        return result
    }

    static func sizes(fd: Int32, fourCC: FourCC, driver: any V4L2Driver) throws(V4L2Errno) -> [CameraFrameSize] {
        var result: [CameraFrameSize] = []
        for index in 0..<maximumSizes {
            var e = v4l2_frmsizeenum()
            e.index = UInt32(index)
            e.pixel_format = fourCC.rawValue
            do { try driver.ioctl(fd, .enumerateFrameSizes, &e) } catch {
                if error == .invalidArgument || error == .notTTY { break }
                throw error
            }
            var found: [(UInt32, UInt32)] = []
            if e.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                found = [(e.discrete.width, e.discrete.height)]
            } else {
                found = [(e.stepwise.min_width, e.stepwise.min_height), (e.stepwise.max_width, e.stepwise.max_height)]
            }
            for (w, h) in found where w > 0 && h > 0 {
                result.append(CameraFrameSize(
                    width: Int(w), height: Int(h),
                    intervals: try intervals(fd: fd, fourCC: fourCC, width: w, height: h, driver: driver)))
            }
            if e.type != V4L2_FRMSIZE_TYPE_DISCRETE.rawValue { break }  // one stepwise range describes them all
        }
        return result
    }

    static func intervals(
        fd: Int32, fourCC: FourCC, width: UInt32, height: UInt32, driver: any V4L2Driver
    ) throws(V4L2Errno) -> [CameraFrameInterval] {
        var result: [CameraFrameInterval] = []
        for index in 0..<maximumIntervals {
            var e = v4l2_frmivalenum()
            e.index = UInt32(index)
            e.pixel_format = fourCC.rawValue
            e.width = width
            e.height = height
            do { try driver.ioctl(fd, .enumerateFrameIntervals, &e) } catch {
                if error == .invalidArgument || error == .notTTY { break }
                throw error
            }
            if e.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
                result.append(CameraFrameInterval(numerator: e.discrete.numerator, denominator: e.discrete.denominator))
            } else {
                result.append(CameraFrameInterval(numerator: e.stepwise.min.numerator, denominator: e.stepwise.min.denominator))
                result.append(CameraFrameInterval(numerator: e.stepwise.max.numerator, denominator: e.stepwise.max.denominator))
                break
            }
        }
        return result.filter { $0.numerator > 0 && $0.denominator > 0 }
    }
}

/// The text of a fixed-size, NUL-padded C character array imported as a tuple (`v4l2_capability.card`, ...).
/// Never reads past the array, terminated or not.
func cString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
}
