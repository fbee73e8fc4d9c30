import CV4L2

/// One opened camera: its descriptor, negotiated format and memory-mapped streaming buffers.
///
/// ``open(path:preferences:driver:)`` acquires everything (`S_FMT`, `S_PARM`, `REQBUFS`, `mmap`) or, on any
/// failure, releases what it took and throws. ``release()`` gives it all back (`munmap`, `REQBUFS 0`,
/// `close`) and is idempotent.
///
/// ## Threading
/// Used by one thread at a time, handed over explicitly: the control thread while not capturing, the capture
/// thread while capturing (from `MediaThread` start to its join), and the capture thread alone when it fails.
/// The one exception is ``streamOff()``, which the control thread calls while the capture thread runs, to
/// wake it (V4L2 allows ioctls on one descriptor from two threads). That discipline makes the `@unchecked Sendable` sound.
final class CameraSession: @unchecked Sendable {
    /// How many buffers are requested; the driver may grant more or fewer (at least 2 are required).
    static let requestedBufferCount: UInt32 = 4

    struct MappedBuffer {
        let address: UnsafeMutableRawPointer
        let length: Int
    }

    let driver: any V4L2Driver
    let device: CameraDevice
    /// The camera's frames as they sit in its buffers (driver strides).
    let sourceFormat: VideoFormat
    /// What the capturer delivers: same size, tightly packed, in the preferred output pixel format.
    let outputFormat: VideoFormat
    /// Bytes a buffer must hold for an uncompressed frame of ``sourceFormat`` (plane after plane).
    let sourceFrameSize: Int
    /// Converts from the mapped buffers into pooled frames; capture thread only while capturing.
    let converter: VideoConverter

    private(set) var fd: Int32
    private(set) var buffers: [MappedBuffer]

    var path: String { device.path }

    private init(
        driver: any V4L2Driver, device: CameraDevice, fd: Int32, buffers: [MappedBuffer],
        sourceFormat: VideoFormat, outputFormat: VideoFormat
    ) {
        self.driver = driver
        self.device = device
        self.fd = fd
        self.buffers = buffers
        self.sourceFormat = sourceFormat
        self.outputFormat = outputFormat
        sourceFrameSize = sourceFormat.pixelFormat.isCompressed ? 1 : sourceFormat.minimumFrameSize
        converter = VideoConverter(pool: VideoFramePool(capacity: 4))
    }

    deinit { release() }

    /// Opens the camera at `path`, negotiates a format (see ``CameraNegotiation``) and maps its buffers.
    static func open(path: String, preferences: CameraPreferences, driver: any V4L2Driver) throws(VideoCaptureError) -> CameraSession {
        let fd: Int32
        do { fd = try driver.open(path, nonBlocking: true) } catch {
            throw .v4l2(error, "open", path: path, opening: true)
        }
        var mapped: [MappedBuffer] = []
        var ownsBuffers = false
        do throws(VideoCaptureError) {
            let described: CameraDevice?
            do { described = try CameraDiscovery.describe(fd: fd, path: path, driver: driver) } catch {
                throw .v4l2(error, "VIDIOC_QUERYCAP", path: path, opening: error == .notTTY)
            }
            guard let device = described else {
                throw VideoCaptureError.noSuchDevice("\(path) (not a video capture device)")
            }
            guard let choice = CameraNegotiation.choose(from: device.formats, for: preferences) else {
                throw VideoCaptureError.noUsableFormat(path)
            }
            let source = try setFormat(choice, fd: fd, path: path, driver: driver)
            let fps = setInterval(choice.interval, fd: fd, driver: driver) ?? preferences.framesPerSecond
            var sourceFormat = source
            sourceFormat.estimatedFramesPerSecond = fps
            var output = sourceFormat.with(pixelFormat: preferences.outputFormat.pixelFormat)
            output.estimatedFramesPerSecond = fps

            var req = v4l2_requestbuffers()
            req.count = requestedBufferCount
            req.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            req.memory = V4L2_MEMORY_MMAP.rawValue
            do { try driver.ioctl(fd, .requestBuffers, &req) } catch { throw VideoCaptureError.v4l2(error, "VIDIOC_REQBUFS", path: path) }
            ownsBuffers = true
            guard req.count >= 2 else {
                throw VideoCaptureError.systemError(operation: "VIDIOC_REQBUFS \(path) (\(req.count) buffers)", errno: V4L2Errno.io.rawValue)
            }
            for index in 0..<req.count {
                var buf = v4l2_buffer()
                buf.index = index
                buf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
                buf.memory = V4L2_MEMORY_MMAP.rawValue
                do { try driver.ioctl(fd, .queryBuffer, &buf) } catch { throw VideoCaptureError.v4l2(error, "VIDIOC_QUERYBUF", path: path) }
                let length = Int(buf.length)
                guard length >= (source.pixelFormat.isCompressed ? 1 : source.minimumFrameSize) else {
                    throw VideoCaptureError.noUsableFormat("\(path) (buffer of \(length) bytes for \(source))")
                }
                do {
                    let address = try driver.map(fd, length: length, offset: Int(buf.m.offset))
                    mapped.append(MappedBuffer(address: address, length: length))
                } catch {
                    throw VideoCaptureError.v4l2(error, "mmap", path: path)
                }
            }
            return CameraSession(driver: driver, device: device, fd: fd, buffers: mapped, sourceFormat: sourceFormat, outputFormat: output)
        } catch {
            for b in mapped { try? driver.unmap(b.address, length: b.length) }
            if ownsBuffers { freeBuffers(fd: fd, driver: driver) }
            driver.close(fd)
            throw error
        }
    }

    /// `S_FMT` with the chosen format and size; returns the format the driver actually set.
    private static func setFormat(_ choice: CameraNegotiation.Choice, fd: Int32, path: String, driver: any V4L2Driver) throws(VideoCaptureError) -> VideoFormat {
        var fmt = v4l2_format()
        fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        fmt.fmt.pix.pixelformat = choice.fourCC.rawValue
        fmt.fmt.pix.width = UInt32(clamping: choice.width)
        fmt.fmt.pix.height = UInt32(clamping: choice.height)
        fmt.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        do { try driver.ioctl(fd, .setFormat, &fmt) } catch { throw .v4l2(error, "VIDIOC_S_FMT", path: path) }
        let pix = fmt.fmt.pix
        guard let pixelFormat = FourCC(rawValue: pix.pixelformat).pixelFormat else {
            throw .noUsableFormat("\(path) (driver set \(FourCC(rawValue: pix.pixelformat)))")
        }
        let width = Int(pix.width), height = Int(pix.height), stride = Int(pix.bytesperline)
        let strides: PlaneStrides? = switch pixelFormat {
        case .nv12 where stride > 0: [stride, stride]
        case .i420 where stride > 0: [stride, stride / 2, stride / 2]
        case .yuy2 where stride > 0: [stride]
        default: nil  // tightly packed (MJPEG has none)
        }
        let format = VideoFormat(pixelFormat: pixelFormat, width: width, height: height, bytesPerRow: strides)
        do { try format.validate() } catch { throw .noUsableFormat("\(path) (driver set \(format): \(error))") }
        if !pixelFormat.isCompressed, pix.sizeimage > 0, Int(pix.sizeimage) < format.minimumFrameSize {
            throw .noUsableFormat("\(path) (image size \(pix.sizeimage) below \(format.minimumFrameSize) for \(format))")
        }
        return format
    }

    /// `S_PARM` with the chosen interval; returns the frame rate the driver settled on, or nil if it does
    /// not support setting one (it then keeps its own).
    private static func setInterval(_ interval: CameraFrameInterval?, fd: Int32, driver: any V4L2Driver) -> Double? {
        var parm = v4l2_streamparm()
        parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        if let interval {
            parm.parm.capture.timeperframe = v4l2_fract(numerator: interval.numerator, denominator: interval.denominator)
            if (try? driver.ioctl(fd, .setParameters, &parm)) == nil { return nil }
        } else if (try? driver.ioctl(fd, .getParameters, &parm)) == nil {
            return nil
        }
        let t = parm.parm.capture.timeperframe
        let fps = CameraFrameInterval(numerator: t.numerator, denominator: t.denominator).framesPerSecond
        return fps > 0 ? fps : nil
    }

    private static func freeBuffers(fd: Int32, driver: any V4L2Driver) {
        var req = v4l2_requestbuffers()
        req.count = 0
        req.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        req.memory = V4L2_MEMORY_MMAP.rawValue
        try? driver.ioctl(fd, .requestBuffers, &req)
    }

    // MARK: Streaming

    /// Queues every buffer and starts streaming. Control thread, not capturing.
    func startStreaming() throws(VideoCaptureError) {
        guard fd >= 0 else { throw .notInitialized }
        var type = Int32(bitPattern: V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        // STREAMOFF first: it returns every buffer to us, whatever a previous run left queued.
        do { try driver.ioctl(fd, .streamOff, &type) } catch { throw .v4l2(error, "VIDIOC_STREAMOFF", path: path) }
        for index in buffers.indices {
            do { try queue(UInt32(index)) } catch { throw .v4l2(error, "VIDIOC_QBUF", path: path) }
        }
        do { try driver.ioctl(fd, .streamOn, &type) } catch { throw .v4l2(error, "VIDIOC_STREAMON", path: path) }
    }

    /// `VIDIOC_STREAMOFF`, errors ignored (the device may be gone).
    func streamOff() {
        guard fd >= 0 else { return }
        var type = Int32(bitPattern: V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        try? driver.ioctl(fd, .streamOff, &type)
    }

    /// Hands buffer `index` back to the driver (`VIDIOC_QBUF`).
    @inline(__always)
    func queue(_ index: UInt32) throws(V4L2Errno) {
        var buf = v4l2_buffer()
        buf.index = index
        buf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buf.memory = V4L2_MEMORY_MMAP.rawValue
        try driver.ioctl(fd, .queueBuffer, &buf)
    }

    /// Unmaps the buffers, frees them and closes the descriptor. Idempotent; never throws (a gone device
    /// fails `REQBUFS`, which changes nothing: closing frees everything).
    func release() {
        guard fd >= 0 else { return }
        streamOff()
        for b in buffers { try? driver.unmap(b.address, length: b.length) }
        buffers = []
        Self.freeBuffers(fd: fd, driver: driver)
        driver.close(fd)
        fd = -1
    }
}
