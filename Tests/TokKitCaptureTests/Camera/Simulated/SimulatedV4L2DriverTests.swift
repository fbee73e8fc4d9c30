import CV4L2
import Testing
@testable import TokKitCapture

/// The simulated driver answers as the kernel would: these tests pin the behaviour CameraCapturer relies on,
/// so that passing capturer tests mean something.
@Suite struct SimulatedV4L2DriverTests {
    static let path = "/dev/video0"
    static let capture = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue

    func format(_ fourCC: FourCC, _ w: Int, _ h: Int) -> v4l2_format {
        var f = v4l2_format()
        f.type = Self.capture
        f.fmt.pix.pixelformat = fourCC.rawValue
        f.fmt.pix.width = UInt32(w)
        f.fmt.pix.height = UInt32(h)
        return f
    }

    func requestBuffers(_ driver: SimulatedV4L2Driver, _ fd: Int32, count: UInt32) throws(V4L2Errno) -> UInt32 {
        var req = v4l2_requestbuffers()
        req.count = count
        req.type = Self.capture
        req.memory = V4L2_MEMORY_MMAP.rawValue
        try driver.ioctl(fd, .requestBuffers, &req)
        return req.count
    }

    func buffer(_ index: UInt32) -> v4l2_buffer {
        var b = v4l2_buffer()
        b.index = index
        b.type = Self.capture
        b.memory = V4L2_MEMORY_MMAP.rawValue
        return b
    }

    /// Opens, allocates `count` buffers, maps and queues them all, streams. Returns fd and mappings.
    func stream(_ driver: SimulatedV4L2Driver, count: UInt32 = 2, nonBlocking: Bool = true) throws -> (Int32, [(UnsafeMutableRawPointer, Int)]) {
        let fd = try driver.open(Self.path, nonBlocking: nonBlocking)
        let n = try requestBuffers(driver, fd, count: count)
        var maps: [(UnsafeMutableRawPointer, Int)] = []
        for i in 0..<n {
            var b = buffer(i)
            try driver.ioctl(fd, .queryBuffer, &b)
            maps.append((try driver.map(fd, length: Int(b.length), offset: Int(b.m.offset)), Int(b.length)))
            try driver.ioctl(fd, .queueBuffer, &b)
        }
        var type = Int32(bitPattern: Self.capture)
        try driver.ioctl(fd, .streamOn, &type)
        return (fd, maps)
    }

    func unmapAll(_ driver: SimulatedV4L2Driver, _ maps: [(UnsafeMutableRawPointer, Int)]) throws {
        for (p, n) in maps { try driver.unmap(p, length: n) }
    }

    @Test func setFormatAdjustsToWhatTheCameraHas() throws {
        let driver = SimulatedV4L2Driver([.webcam(path: Self.path)])
        let fd = try driver.open(Self.path, nonBlocking: true)
        defer { driver.close(fd) }
        // Unknown pixel format: the default one. Unknown size: the nearest by area.
        var f = format(FourCC("RGB3"), 600, 400)
        try driver.ioctl(fd, .setFormat, &f)
        #expect(FourCC(rawValue: f.fmt.pix.pixelformat) == .yuyv)
        #expect(f.fmt.pix.width == 640 && f.fmt.pix.height == 480)
        #expect(f.fmt.pix.bytesperline == 1280 && f.fmt.pix.sizeimage == 1280 * 480)
        var g = v4l2_format()
        g.type = Self.capture
        try driver.ioctl(fd, .getFormat, &g)
        #expect(g.fmt.pix.width == 640 && g.fmt.pix.pixelformat == FourCC.yuyv.rawValue)
        // Wrong buffer type: EINVAL.
        var bad = format(.yuyv, 640, 480)
        bad.type = V4L2_BUF_TYPE_VIDEO_OUTPUT.rawValue
        #expect(throws: V4L2Errno.invalidArgument) { try driver.ioctl(fd, .setFormat, &bad) }
    }

    @Test func setParametersPicksTheNearestInterval() throws {
        let driver = SimulatedV4L2Driver([.webcam(path: Self.path)])
        let fd = try driver.open(Self.path, nonBlocking: true)
        defer { driver.close(fd) }
        var parm = v4l2_streamparm()
        parm.type = Self.capture
        parm.parm.capture.timeperframe = v4l2_fract(numerator: 1, denominator: 20)
        try driver.ioctl(fd, .setParameters, &parm)
        #expect(parm.parm.capture.timeperframe.numerator == 666_666)  // 15 fps is nearer 20 than 30 in time
        #expect(parm.parm.capture.capability == UInt32(V4L2_CAP_TIMEPERFRAME))
    }

    @Test func enumerationEndsWithEINVAL() throws {
        let driver = SimulatedV4L2Driver([.webcam(path: Self.path)])
        let fd = try driver.open(Self.path, nonBlocking: true)
        defer { driver.close(fd) }
        var d = v4l2_fmtdesc()
        d.type = Self.capture
        d.index = 2
        #expect(throws: V4L2Errno.invalidArgument) { try driver.ioctl(fd, .enumerateFormats, &d) }
        var s = v4l2_frmsizeenum()
        s.pixel_format = FourCC.nv12.rawValue
        #expect(throws: V4L2Errno.invalidArgument) { try driver.ioctl(fd, .enumerateFrameSizes, &s) }
        var i = v4l2_frmivalenum()
        i.pixel_format = FourCC.yuyv.rawValue
        i.width = 641
        i.height = 480
        #expect(throws: V4L2Errno.invalidArgument) { try driver.ioctl(fd, .enumerateFrameIntervals, &i) }
        #expect(throws: V4L2Errno.notTTY) { try driver.ioctl(fd, V4L2Request(rawValue: 0x1234), &i) }
    }

    @Test func nonBlockingDequeueIsEAGAINUntilAFrameIsDue() throws {
        let driver = SimulatedV4L2Driver([.simple(path: Self.path, fps: 1)])
        let (fd, maps) = try stream(driver)
        defer { try? unmapAll(driver, maps); driver.close(fd) }
        var b = buffer(0)
        #expect(throws: V4L2Errno.again) { try driver.ioctl(fd, .dequeueBuffer, &b) }
        #expect(driver.againCount == 1)
        #expect(try driver.poll(fd, timeout: .zero) == [])
    }

    @Test func framesCarryMonotonicTimestampsSequenceAndPattern() throws {
        let driver = SimulatedV4L2Driver([.simple(path: Self.path, fourCC: .nv12, width: 320, height: 240, fps: 100, marker: 7)])
        let (fd, maps) = try stream(driver, count: 3)
        defer { try? unmapAll(driver, maps); driver.close(fd) }
        let timing = try #require(driver.streamTiming(Self.path))
        for k in 0..<3 {
            #expect(try driver.poll(fd, timeout: .seconds(5)).contains(.readable))
            var b = buffer(0)
            try driver.ioctl(fd, .dequeueBuffer, &b)
            #expect(b.sequence == UInt32(k))
            #expect(b.flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK) == UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC))
            let ts = Duration.seconds(b.timestamp.tv_sec) + .microseconds(b.timestamp.tv_usec)
            #expect(ts.nanoseconds / 1000 == (timing.start + timing.interval * (k + 1)).nanoseconds / 1000)
            #expect(ts <= MonotonicClock.now())
            #expect(b.bytesused == 320 * 240 * 3 / 2)
            let luma = UnsafeRawBufferPointer(start: maps[Int(b.index)].0, count: 320 * 240)
            let code = SimulatedPattern.decode(luma: luma, stride: 320, width: 320, height: 240)
            #expect(code.counter == UInt16(k) && code.marker == 7)
            #expect(luma[120 * 320 + SimulatedPattern.center(ofBar: 2, width: 320)] == SimulatedPattern.bars[2].y)
            try driver.ioctl(fd, .queueBuffer, &b)
        }
    }

    @Test func framesWithoutAQueuedBufferAreDropped() throws {
        let driver = SimulatedV4L2Driver([.simple(path: Self.path, fps: 200)])
        let (fd, maps) = try stream(driver, count: 2)
        defer { try? unmapAll(driver, maps); driver.close(fd) }
        // Keep both buffers out until at least two more frames were due: their sequence numbers are skipped.
        var a = buffer(0), b = buffer(0)
        #expect(try driver.poll(fd, timeout: .seconds(5)).contains(.readable))
        try driver.ioctl(fd, .dequeueBuffer, &a)
        #expect(try driver.poll(fd, timeout: .seconds(5)).contains(.readable))
        try driver.ioctl(fd, .dequeueBuffer, &b)
        let timing = try #require(driver.streamTiming(Self.path))
        let deadline = timing.start + timing.interval * (Int(b.sequence) + 4)
        #expect(try driver.poll(fd, timeout: .zero) == [])  // nothing queued: nothing can be filled
        // Let the camera run past those frames: poll waits for the deadline, as nothing can become ready.
        for _ in 0..<100 where MonotonicClock.now() < deadline {
            _ = try driver.poll(fd, timeout: deadline - MonotonicClock.now())
        }
        try driver.ioctl(fd, .queueBuffer, &a)
        #expect(try driver.poll(fd, timeout: .seconds(5)).contains(.readable))
        var c = buffer(0)
        try driver.ioctl(fd, .dequeueBuffer, &c)
        #expect(c.sequence >= b.sequence + 3)
    }

    @Test func queueRulesAreTheKernels() throws {
        let driver = SimulatedV4L2Driver([.simple(path: Self.path)])
        let (fd, maps) = try stream(driver, count: 2)
        // Queued twice: EINVAL. Out of range: EINVAL.
        var b = buffer(0)
        #expect(throws: V4L2Errno.invalidArgument) { try driver.ioctl(fd, .queueBuffer, &b) }
        var far = buffer(9)
        #expect(throws: V4L2Errno.invalidArgument) { try driver.ioctl(fd, .queueBuffer, &far) }
        // Format and buffers are locked while allocated / streaming.
        var f = format(.nv12, 320, 240)
        #expect(throws: V4L2Errno.busy) { try driver.ioctl(fd, .setFormat, &f) }
        #expect(throws: V4L2Errno.busy) { _ = try requestBuffers(driver, fd, count: 0) }
        // STREAMOFF returns every buffer; DQBUF then says EINVAL, poll POLLERR.
        var type = Int32(bitPattern: Self.capture)
        try driver.ioctl(fd, .streamOff, &type)
        #expect(throws: V4L2Errno.invalidArgument) { try driver.ioctl(fd, .dequeueBuffer, &b) }
        #expect(try driver.poll(fd, timeout: .seconds(1)) == .error)
        try driver.ioctl(fd, .queueBuffer, &b)  // returned to us: may be queued again
        // Still mapped: the buffers cannot be freed.
        #expect(throws: V4L2Errno.busy) { _ = try requestBuffers(driver, fd, count: 0) }
        try unmapAll(driver, maps)
        #expect(try requestBuffers(driver, fd, count: 0) == 0)
        // Only MMAP is offered.
        var user = v4l2_requestbuffers()
        user.count = 2
        user.type = Self.capture
        user.memory = V4L2_MEMORY_USERPTR.rawValue
        #expect(throws: V4L2Errno.invalidArgument) { try driver.ioctl(fd, .requestBuffers, &user) }
        driver.close(fd)
        #expect(driver.openDescriptorCount == 0 && driver.liveMappingCount == 0)
    }

    @Test func secondOpenOfABusyDeviceIsEBUSY() throws {
        let driver = SimulatedV4L2Driver([.simple(path: Self.path)])
        let a = try driver.open(Self.path, nonBlocking: true)
        let b = try driver.open(Self.path, nonBlocking: true)  // nobody owns the buffers yet: allowed
        #expect(try requestBuffers(driver, a, count: 2) == 2)
        #expect(throws: V4L2Errno.busy) { try driver.open(Self.path, nonBlocking: true) }
        #expect(throws: V4L2Errno.busy) { _ = try requestBuffers(driver, b, count: 2) }
        var f = format(.nv12, 320, 240)
        #expect(throws: V4L2Errno.busy) { try driver.ioctl(b, .setFormat, &f) }
        driver.close(a)  // closing the owner frees the queue
        #expect(try requestBuffers(driver, b, count: 2) == 2)
        driver.close(b)
        #expect(throws: V4L2Errno.noSuchFile) { try driver.open("/dev/video5", nonBlocking: true) }
        #expect(throws: V4L2Errno.badFileDescriptor) { var c = v4l2_capability(); try driver.ioctl(b, .queryCapabilities, &c) }
    }

    @Test func unplugFailsEverythingWithENODEV() throws {
        let driver = SimulatedV4L2Driver([.simple(path: Self.path)])
        let (fd, maps) = try stream(driver)
        driver.unplug(Self.path)
        #expect(try driver.poll(fd, timeout: .seconds(1)) == [.error, .hangUp, .priority])
        var b = buffer(0)
        #expect(throws: V4L2Errno.noDevice) { try driver.ioctl(fd, .dequeueBuffer, &b) }
        #expect(throws: V4L2Errno.noDevice) { try driver.ioctl(fd, .queueBuffer, &b) }
        #expect(throws: V4L2Errno.noDevice) { _ = try driver.map(fd, length: 4096, offset: 0) }
        #expect(throws: V4L2Errno.noSuchFile) { try driver.open(Self.path, nonBlocking: true) }
        #expect(driver.deviceNodes().isEmpty)
        // Mappings outlive the descriptor, as in the kernel, until unmapped.
        driver.close(fd)
        #expect(driver.liveMappingCount == maps.count)
        try unmapAll(driver, maps)
        #expect(driver.liveMappingCount == 0 && driver.openDescriptorCount == 0)
    }

    @Test func blockingDequeueWaitsForTheNextFrame() throws {
        let driver = SimulatedV4L2Driver([.simple(path: Self.path, fps: 100)])
        let (fd, maps) = try stream(driver, nonBlocking: false)
        defer { try? unmapAll(driver, maps); driver.close(fd) }
        var b = buffer(0)
        try driver.ioctl(fd, .dequeueBuffer, &b)
        #expect(b.sequence == 0)
        #expect(driver.againCount == 0)
    }

    @Test func metadataNodeHasNoVideoCapture() throws {
        var meta = SimulatedCamera.simple(path: Self.path)
        meta.isMetadataNode = true
        let driver = SimulatedV4L2Driver([meta])
        let fd = try driver.open(Self.path, nonBlocking: true)
        defer { driver.close(fd) }
        var cap = v4l2_capability()
        try driver.ioctl(fd, .queryCapabilities, &cap)
        #expect(cap.device_caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) == 0)
        #expect(cap.capabilities & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0)  // the device as a whole has one
        #expect(cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0)
    }

    @Test func mjpegFramesAreRealJPEGs() throws {
        let driver = SimulatedV4L2Driver([.simple(path: Self.path, fourCC: .mjpeg, width: 320, height: 240, fps: 100)])
        let (fd, maps) = try stream(driver)
        defer { try? unmapAll(driver, maps); driver.close(fd) }
        #expect(try driver.poll(fd, timeout: .seconds(5)).contains(.readable))
        var b = buffer(0)
        try driver.ioctl(fd, .dequeueBuffer, &b)
        let jpeg = UnsafeRawBufferPointer(start: maps[Int(b.index)].0, count: Int(b.bytesused))
        #expect(jpeg.count > 100)
        #expect(jpeg[0] == 0xFF && jpeg[1] == 0xD8)  // SOI
        #expect(jpeg[jpeg.count - 2] == 0xFF && jpeg[jpeg.count - 1] == 0xD9)  // EOI
    }
}
