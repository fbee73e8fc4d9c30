#if canImport(Glibc)
import Glibc
#endif
import CV4L2
import TokKitCapture

/// A V4L2 driver in user space that behaves as the kernel (v4l2-core, videobuf2, uvcvideo) does, call for
/// call, so that ``CameraCapturer`` runs its real code path on a machine without cameras.
///
/// Faithful where it matters to a capturer:
/// - `open`: `ENOENT` for a missing (or unplugged) node, `EACCES` when not allowed, `EBUSY` while another
///   descriptor owns the device's buffers (or "another process" holds it).
/// - `QUERYCAP`: `capabilities` describes the whole device, `device_caps` this node (a UVC metadata node says
///   `META_CAPTURE`). `ENUM_FMT`/`ENUM_FRAMESIZES`/`ENUM_FRAMEINTERVALS`: discrete lists, `EINVAL` past the end.
/// - `S_FMT` adjusts to what exists (unknown pixel format → the default one, size → the nearest by uvcvideo's
///   area metric) and fills `bytesperline`/`sizeimage`; `EBUSY` once buffers are allocated. `S_PARM` picks the
///   nearest interval; `EBUSY` while streaming.
/// - Queue: `REQBUFS` (MMAP only, count clamped to 2...32, `EBUSY` while mapped or streaming or owned by
///   another descriptor), `QUERYBUF` offsets, `mmap` of real shared memory (so a mapping outlives `close` and
///   dies with `munmap`, as in the kernel), `QBUF` (`EINVAL` if already queued), `DQBUF` (`EAGAIN` on a
///   non-blocking descriptor when nothing is filled; `EINVAL` when not streaming), `STREAMON`/`STREAMOFF`
///   (which returns every buffer and wakes waiters).
/// - Frames arrive in real time at the set interval: frame k is captured at `STREAMON` time + (k+1)·interval,
///   into the oldest queued buffer, or dropped when none is queued (its sequence number is skipped). Buffers
///   carry `CLOCK_MONOTONIC` timestamps (`V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC`) and ``SimulatedPattern``.
/// - `poll`: readable when a filled buffer waits; `POLLERR` when not streaming; `POLLERR|POLLHUP|POLLPRI` once
///   unplugged. After ``unplug(_:)`` every ioctl and `mmap` on an open descriptor fails with `ENODEV`.
///
/// It counts what a capturer must give back (descriptors, mappings) and what it ran into (`EAGAIN`).
/// Thread-safe: one lock guards everything; `poll` and blocking `DQBUF` wait on its condition.
final class SimulatedV4L2Driver: V4L2Driver, @unchecked Sendable {
    private let lock = ConditionLock()
    private var devices: [String: Device] = [:]
    private var handles: [Int32: Handle] = [:]
    private var mappings: [UInt: Mapping] = [:]
    private var heldElsewhere: Set<String> = []
    private var nextDescriptor: Int32 = 1000
    private var againCounter = 0
    private var openCounter = 0

    init(_ cameras: [SimulatedCamera] = []) {
        for camera in cameras { devices[camera.path] = Device(camera) }
    }

    // MARK: Test controls and counters

    /// Plugs a camera in (again): a fresh device at its path.
    func plug(_ camera: SimulatedCamera) {
        lock.withLock { devices[camera.path] = Device(camera) }
    }

    /// Unplugs the camera at `path`: the node disappears, open descriptors fail with `ENODEV`, waiters wake.
    func unplug(_ path: String) {
        lock.withLock {
            devices.removeValue(forKey: path)?.gone = true
            lock.broadcast()
        }
    }

    /// Makes `open` of `path` fail with `EBUSY`, as when another process streams from it.
    func setHeldByAnotherProcess(_ path: String, _ held: Bool) {
        lock.withLock { if held { heldElsewhere.insert(path) } else { heldElsewhere.remove(path) } }
    }

    /// Descriptors open now.
    var openDescriptorCount: Int { lock.withLock { handles.count } }
    /// Buffer mappings alive now.
    var liveMappingCount: Int { lock.withLock { mappings.count } }
    /// `DQBUF` calls answered with `EAGAIN` so far.
    var againCount: Int { lock.withLock { againCounter } }
    /// Successful `open` calls so far.
    var openCount: Int { lock.withLock { openCounter } }

    /// Waits (bounded) until no descriptor is open and no buffer mapped. Returns whether that happened.
    func waitUntilReleased(timeout: Duration) -> Bool {
        let deadline = MonotonicClock.now() + timeout
        return lock.withLock {
            while !(handles.isEmpty && mappings.isEmpty) {
                if MonotonicClock.now() >= deadline { return false }
                lock.wait(until: deadline)
            }
            return true
        }
    }

    /// When streaming started on `path` and the frame interval: frame k carries timestamp
    /// `start + (k+1)·interval`.
    func streamTiming(_ path: String) -> (start: Duration, interval: Duration)? {
        lock.withLock {
            guard let d = devices[path], d.streaming else { return nil }
            return (d.streamStart, d.interval.duration)
        }
    }

    /// The format set on `path` (after the driver's adjustments).
    func currentFormat(_ path: String) -> (fourCC: FourCC, width: Int, height: Int, bytesPerLine: Int, interval: CameraFrameInterval)? {
        lock.withLock {
            guard let d = devices[path] else { return nil }
            return (d.fourCC, d.width, d.height, d.bytesPerLine, d.interval)
        }
    }

    // MARK: V4L2Driver

    func deviceNodes() -> [String] {
        lock.withLock {
            devices.keys.sorted { a, b in
                let na = Int(a.reversed().prefix { $0.isNumber }.reversed().map(String.init).joined()) ?? 0
                let nb = Int(b.reversed().prefix { $0.isNumber }.reversed().map(String.init).joined()) ?? 0
                return (na, a) < (nb, b)
            }
        }
    }

    func open(_ path: String, nonBlocking: Bool) throws(V4L2Errno) -> Int32 {
        try lock.withLock { () throws(V4L2Errno) -> Int32 in
            guard let d = devices[path] else { throw .noSuchFile }
            if d.camera.permissionDenied { throw .accessDenied }
            if d.owner != nil || heldElsewhere.contains(path) { throw .busy }
            let fd = nextDescriptor
            nextDescriptor += 1
            handles[fd] = Handle(device: d, nonBlocking: nonBlocking)
            openCounter += 1
            return fd
        }
    }

    func close(_ fd: Int32) {
        lock.withLock {
            guard let h = handles.removeValue(forKey: fd) else { return }
            let d = h.device
            if d.owner == fd {
                d.streaming = false
                d.owner = nil
                if let q = d.queue {
                    d.queue = nil
                    q.free()
                }
            }
            lock.broadcast()
        }
    }

    func ioctl(_ fd: Int32, _ request: V4L2Request, _ arg: UnsafeMutableRawPointer) throws(V4L2Errno) {
        try lock.withLock { () throws(V4L2Errno) in
            guard let h = handles[fd] else { throw .badFileDescriptor }
            let d = h.device
            guard !d.gone else { throw .noDevice }
            catchUp(d)
            switch request {
            case .queryCapabilities: queryCapabilities(d, arg.assumingMemoryBound(to: v4l2_capability.self))
            case .enumerateFormats: try enumerateFormats(d, arg.assumingMemoryBound(to: v4l2_fmtdesc.self))
            case .enumerateFrameSizes: try enumerateSizes(d, arg.assumingMemoryBound(to: v4l2_frmsizeenum.self))
            case .enumerateFrameIntervals: try enumerateIntervals(d, arg.assumingMemoryBound(to: v4l2_frmivalenum.self))
            case .getFormat: try getFormat(d, arg.assumingMemoryBound(to: v4l2_format.self))
            case .setFormat: try setFormat(d, fd, arg.assumingMemoryBound(to: v4l2_format.self))
            case .getParameters: try getParameters(d, arg.assumingMemoryBound(to: v4l2_streamparm.self))
            case .setParameters: try setParameters(d, fd, arg.assumingMemoryBound(to: v4l2_streamparm.self))
            case .requestBuffers: try requestBuffers(d, fd, arg.assumingMemoryBound(to: v4l2_requestbuffers.self))
            case .queryBuffer: try queryBuffer(d, arg.assumingMemoryBound(to: v4l2_buffer.self))
            case .queueBuffer: try queueBuffer(d, fd, arg.assumingMemoryBound(to: v4l2_buffer.self))
            case .dequeueBuffer: try dequeueBuffer(h, fd, arg.assumingMemoryBound(to: v4l2_buffer.self))
            case .streamOn: try streamOn(d, fd, arg.assumingMemoryBound(to: Int32.self).pointee)
            case .streamOff: try streamOff(d, fd, arg.assumingMemoryBound(to: Int32.self).pointee)
            default: throw .notTTY
            }
        }
    }

    func map(_ fd: Int32, length: Int, offset: Int) throws(V4L2Errno) -> UnsafeMutableRawPointer {
        try lock.withLock { () throws(V4L2Errno) -> UnsafeMutableRawPointer in
            guard let h = handles[fd] else { throw .badFileDescriptor }
            let d = h.device
            guard !d.gone else { throw .noDevice }
            guard let q = d.queue, length > 0, length <= q.stride, offset % q.stride == 0, offset / q.stride < q.slots.count
            else { throw .invalidArgument }
            let p = Glibc.mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, q.memory, off_t(offset))
            guard let p, p != UnsafeMutableRawPointer(bitPattern: -1) else { throw .current }
            mappings[UInt(bitPattern: p)] = Mapping(queue: q, index: offset / q.stride, length: length)
            q.slots[offset / q.stride].mappings += 1
            q.mappings += 1
            return p
        }
    }

    func unmap(_ address: UnsafeMutableRawPointer, length: Int) throws(V4L2Errno) {
        try lock.withLock { () throws(V4L2Errno) in
            guard let m = mappings[UInt(bitPattern: address)], m.length == length else { throw .invalidArgument }
            mappings.removeValue(forKey: UInt(bitPattern: address))
            _ = Glibc.munmap(address, length)
            m.queue.slots[m.index].mappings -= 1
            m.queue.mappings -= 1
            if m.queue.isOrphaned && m.queue.mappings == 0 { m.queue.free() }
            lock.broadcast()
        }
    }

    func poll(_ fd: Int32, timeout: Duration) throws(V4L2Errno) -> V4L2PollEvents {
        lock.withLock {
            let deadline = MonotonicClock.now() + timeout
            while true {
                guard let h = handles[fd] else { return .invalid }
                let d = h.device
                if d.gone { return [.error, .hangUp, .priority] }
                guard d.owner == fd, d.streaming, !d.waitingForBuffers, let q = d.queue else { return .error }
                catchUp(d)
                if !q.done.isEmpty { return .readable }
                let now = MonotonicClock.now()
                if now >= deadline { return [] }
                lock.wait(until: q.queued.isEmpty ? deadline : min(deadline, d.nextFrameTime))
            }
        }
    }

    // MARK: Model

    private final class Device {
        let camera: SimulatedCamera
        var gone = false
        var fourCC: FourCC
        var width: Int
        var height: Int
        var bytesPerLine = 0
        var sizeImage = 0
        var interval: CameraFrameInterval
        var owner: Int32?
        var queue: BufferQueue?
        var streaming = false
        var waitingForBuffers = true
        var streamStart: Duration = .zero
        /// Frames captured (or dropped) since STREAMON: the sequence number of the next one.
        var produced = 0
        var pattern: SimulatedPattern?

        init(_ camera: SimulatedCamera) {
            self.camera = camera
            let f = camera.formats.first, s = f?.sizes.first
            fourCC = f?.fourCC ?? .yuyv
            width = s?.width ?? 640
            height = s?.height ?? 480
            interval = s?.intervals.first ?? .fps(30)
            computeLayout()
        }

        func format(_ fourCC: FourCC) -> CameraFormat? { camera.formats.first { $0.fourCC == fourCC } }

        var currentSize: CameraFrameSize? {
            format(fourCC)?.sizes.first { $0.width == width && $0.height == height }
        }

        var nextFrameTime: Duration { streamStart + interval.duration * (produced + 1) }

        func computeLayout() {
            let a = camera.rowAlignment
            func align(_ n: Int) -> Int { (n + a - 1) / a * a }
            let chromaRows = (height + 1) / 2
            switch fourCC {
            case .yuyv:
                bytesPerLine = align(width * 2)
                sizeImage = bytesPerLine * height
            case .nv12:
                bytesPerLine = align(width)
                sizeImage = bytesPerLine * (height + chromaRows)
            case .yu12:
                bytesPerLine = align((width + 1) / 2) * 2
                sizeImage = bytesPerLine * height + bytesPerLine * chromaRows
            default:
                bytesPerLine = 0
                sizeImage = width * height * 2
            }
        }
    }

    private final class BufferQueue {
        enum State { case idle, queued, done }
        struct Slot {
            var state = State.idle
            var bytesUsed = 0
            var sequence = 0
            var timestamp: Duration = .zero
            var error = false
            var mappings = 0
        }
        /// The shared memory behind every buffer, one `stride` apart.
        let memory: Int32
        let base: UnsafeMutableRawPointer
        let stride: Int
        let length: Int
        var slots: [Slot]
        var queued: [Int] = []
        var done: [Int] = []
        var mappings = 0
        var isOrphaned = false
        private var freed = false

        init?(count: Int, length: Int) {
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            stride = (length + page - 1) / page * page
            self.length = length
            let name = "/tokkit-sim-\(getpid())-\(UInt.random(in: 0...UInt.max))"
            let fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { return nil }
            shm_unlink(name)
            guard ftruncate(fd, off_t(stride * count)) == 0,
                let p = Glibc.mmap(nil, stride * count, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0),
                p != UnsafeMutableRawPointer(bitPattern: -1)
            else {
                Glibc.close(fd)
                return nil
            }
            memory = fd
            base = p
            slots = Array(repeating: Slot(), count: count)
        }

        func buffer(_ index: Int) -> UnsafeMutableRawBufferPointer {
            UnsafeMutableRawBufferPointer(start: base + index * stride, count: length)
        }

        /// Frees the memory now, or once the last mapping is gone (as the kernel keeps mapped buffers alive).
        func free() {
            guard !freed else { return }
            if mappings > 0 {
                isOrphaned = true
                return
            }
            freed = true
            Glibc.munmap(base, stride * slots.count)
            Glibc.close(memory)
        }
    }

    private struct Handle {
        let device: Device
        let nonBlocking: Bool
    }

    private struct Mapping {
        let queue: BufferQueue
        let index: Int
        let length: Int
    }

    private static let captureType = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
    private static let mmapMemory = V4L2_MEMORY_MMAP.rawValue

    /// Captures every frame due by now: each takes the oldest queued buffer, or is dropped if none is queued.
    private func catchUp(_ d: Device) {
        guard d.streaming, let q = d.queue else { return }
        let intervalNs = max(1, d.interval.duration.nanoseconds)
        let due = Int((MonotonicClock.now() - d.streamStart).nanoseconds / intervalNs)
        while d.produced < due {
            guard !q.queued.isEmpty else {
                d.produced = due
                break
            }
            let index = q.queued.removeFirst()
            let k = d.produced
            let used = d.pattern?.render(into: q.buffer(index), counter: UInt16(truncatingIfNeeded: k), marker: d.camera.marker) ?? 0
            q.slots[index].state = .done
            q.slots[index].bytesUsed = used
            q.slots[index].sequence = k
            q.slots[index].timestamp = d.streamStart + d.interval.duration * (k + 1)
            q.slots[index].error = used == 0 || d.camera.corruptEvery.map { (k + 1) % $0 == 0 } ?? false
            q.done.append(index)
            d.produced += 1
        }
    }

    // MARK: ioctls

    private func queryCapabilities(_ d: Device, _ p: UnsafeMutablePointer<v4l2_capability>) {
        var cap = v4l2_capability()
        write(d.camera.driver, into: &cap.driver)
        write(d.camera.card, into: &cap.card)
        write(d.camera.busInfo, into: &cap.bus_info)
        cap.version = 6 << 16 | 1 << 8
        let video = UInt32(V4L2_CAP_VIDEO_CAPTURE) | UInt32(V4L2_CAP_STREAMING)
        let meta = UInt32(V4L2_CAP_META_CAPTURE) | UInt32(V4L2_CAP_STREAMING)
        cap.device_caps = d.camera.isMetadataNode ? meta : video
        cap.capabilities = video | meta | UInt32(V4L2_CAP_DEVICE_CAPS)
        p.pointee = cap
    }

    private func enumerateFormats(_ d: Device, _ p: UnsafeMutablePointer<v4l2_fmtdesc>) throws(V4L2Errno) {
        guard p.pointee.type == Self.captureType, !d.camera.isMetadataNode, Int(p.pointee.index) < d.camera.formats.count
        else { throw .invalidArgument }
        let f = d.camera.formats[Int(p.pointee.index)]
        p.pointee.flags = f.isCompressed ? UInt32(V4L2_FMT_FLAG_COMPRESSED) : 0
        p.pointee.pixelformat = f.fourCC.rawValue
        write(f.name, into: &p.pointee.description)
    }

    private func enumerateSizes(_ d: Device, _ p: UnsafeMutablePointer<v4l2_frmsizeenum>) throws(V4L2Errno) {
        guard let f = d.format(FourCC(rawValue: p.pointee.pixel_format)), Int(p.pointee.index) < f.sizes.count
        else { throw .invalidArgument }
        let s = f.sizes[Int(p.pointee.index)]
        p.pointee.type = V4L2_FRMSIZE_TYPE_DISCRETE.rawValue
        p.pointee.discrete = v4l2_frmsize_discrete(width: UInt32(s.width), height: UInt32(s.height))
    }

    private func enumerateIntervals(_ d: Device, _ p: UnsafeMutablePointer<v4l2_frmivalenum>) throws(V4L2Errno) {
        guard let f = d.format(FourCC(rawValue: p.pointee.pixel_format)),
            let s = f.sizes.first(where: { $0.width == Int(p.pointee.width) && $0.height == Int(p.pointee.height) }),
            Int(p.pointee.index) < s.intervals.count
        else { throw .invalidArgument }
        let i = s.intervals[Int(p.pointee.index)]
        p.pointee.type = V4L2_FRMIVAL_TYPE_DISCRETE.rawValue
        p.pointee.discrete = v4l2_fract(numerator: i.numerator, denominator: i.denominator)
    }

    private func fillFormat(_ d: Device, _ p: UnsafeMutablePointer<v4l2_format>) {
        var pix = v4l2_pix_format()
        pix.width = UInt32(d.width)
        pix.height = UInt32(d.height)
        pix.pixelformat = d.fourCC.rawValue
        pix.field = V4L2_FIELD_NONE.rawValue
        pix.bytesperline = UInt32(d.bytesPerLine)
        pix.sizeimage = UInt32(d.sizeImage)
        pix.colorspace = V4L2_COLORSPACE_SRGB.rawValue
        p.pointee.fmt.pix = pix
    }

    private func getFormat(_ d: Device, _ p: UnsafeMutablePointer<v4l2_format>) throws(V4L2Errno) {
        guard p.pointee.type == Self.captureType, !d.camera.isMetadataNode else { throw .invalidArgument }
        fillFormat(d, p)
    }

    private func setFormat(_ d: Device, _ fd: Int32, _ p: UnsafeMutablePointer<v4l2_format>) throws(V4L2Errno) {
        guard p.pointee.type == Self.captureType, !d.camera.isMetadataNode, let first = d.camera.formats.first
        else { throw .invalidArgument }
        if let owner = d.owner, owner != fd { throw .busy }
        if d.queue != nil { throw .busy }
        let asked = p.pointee.fmt.pix
        let f = d.format(FourCC(rawValue: asked.pixelformat)) ?? first
        // uvcvideo: the size whose area differs least from the requested one (symmetric difference).
        let (w, h) = (Int(asked.width), Int(asked.height))
        let size = f.sizes.min { a, b in
            func distance(_ s: CameraFrameSize) -> Int {
                s.width * s.height + w * h - 2 * min(s.width, w) * min(s.height, h)
            }
            return distance(a) < distance(b)
        }
        guard let size else { throw .invalidArgument }
        d.fourCC = f.fourCC
        d.width = size.width
        d.height = size.height
        if !size.intervals.contains(d.interval) { d.interval = size.intervals.first ?? .fps(30) }
        d.computeLayout()
        d.pattern = nil
        fillFormat(d, p)
    }

    private func getParameters(_ d: Device, _ p: UnsafeMutablePointer<v4l2_streamparm>) throws(V4L2Errno) {
        guard p.pointee.type == Self.captureType, !d.camera.isMetadataNode else { throw .invalidArgument }
        var c = v4l2_captureparm()
        c.capability = UInt32(V4L2_CAP_TIMEPERFRAME)
        c.timeperframe = v4l2_fract(numerator: d.interval.numerator, denominator: d.interval.denominator)
        p.pointee.parm.capture = c
    }

    private func setParameters(_ d: Device, _ fd: Int32, _ p: UnsafeMutablePointer<v4l2_streamparm>) throws(V4L2Errno) {
        guard p.pointee.type == Self.captureType, !d.camera.isMetadataNode else { throw .invalidArgument }
        if let owner = d.owner, owner != fd { throw .busy }
        if d.streaming { throw .busy }
        let asked = p.pointee.parm.capture.timeperframe
        if asked.numerator != 0, asked.denominator != 0, let intervals = d.currentSize?.intervals, !intervals.isEmpty {
            let want = CameraFrameInterval(numerator: asked.numerator, denominator: asked.denominator).duration
            d.interval = intervals.min { abs(($0.duration - want).nanoseconds) < abs(($1.duration - want).nanoseconds) }!
        }
        try getParameters(d, p)
    }

    private func requestBuffers(_ d: Device, _ fd: Int32, _ p: UnsafeMutablePointer<v4l2_requestbuffers>) throws(V4L2Errno) {
        guard p.pointee.type == Self.captureType, !d.camera.isMetadataNode, p.pointee.memory == Self.mmapMemory
        else { throw .invalidArgument }
        if let owner = d.owner, owner != fd { throw .busy }
        if d.streaming { throw .busy }
        if let q = d.queue {
            if q.mappings > 0 { throw .busy }
            q.free()
            d.queue = nil
        }
        p.pointee.capabilities = UInt32(V4L2_BUF_CAP_SUPPORTS_MMAP)
        if p.pointee.count == 0 {
            d.owner = nil
            return
        }
        let count = min(32, max(2, Int(p.pointee.count)))
        guard let q = BufferQueue(count: count, length: d.sizeImage) else { throw .current }
        d.queue = q
        d.owner = fd
        d.waitingForBuffers = true
        p.pointee.count = UInt32(count)
    }

    private func describe(_ d: Device, _ q: BufferQueue, _ index: Int, _ p: UnsafeMutablePointer<v4l2_buffer>) {
        let s = q.slots[index]
        var b = v4l2_buffer()
        b.index = UInt32(index)
        b.type = Self.captureType
        b.memory = Self.mmapMemory
        b.length = UInt32(q.length)
        b.m.offset = UInt32(index * q.stride)
        b.field = V4L2_FIELD_NONE.rawValue
        var flags = UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC) | UInt32(V4L2_BUF_FLAG_TSTAMP_SRC_SOE)
        if s.mappings > 0 { flags |= UInt32(V4L2_BUF_FLAG_MAPPED) }
        if s.state == .queued { flags |= UInt32(V4L2_BUF_FLAG_QUEUED) }
        if s.state == .done { flags |= UInt32(V4L2_BUF_FLAG_DONE) }
        if s.error { flags |= UInt32(V4L2_BUF_FLAG_ERROR) }
        b.flags = flags
        b.bytesused = UInt32(s.bytesUsed)
        b.sequence = UInt32(truncatingIfNeeded: s.sequence)
        let ns = s.timestamp.nanoseconds
        b.timestamp = timeval(tv_sec: Int(ns / 1_000_000_000), tv_usec: Int(ns % 1_000_000_000 / 1_000))
        p.pointee = b
    }

    private func queryBuffer(_ d: Device, _ p: UnsafeMutablePointer<v4l2_buffer>) throws(V4L2Errno) {
        guard p.pointee.type == Self.captureType, let q = d.queue, Int(p.pointee.index) < q.slots.count
        else { throw .invalidArgument }
        describe(d, q, Int(p.pointee.index), p)
    }

    private func queueBuffer(_ d: Device, _ fd: Int32, _ p: UnsafeMutablePointer<v4l2_buffer>) throws(V4L2Errno) {
        if let owner = d.owner, owner != fd { throw .busy }
        guard p.pointee.type == Self.captureType, p.pointee.memory == Self.mmapMemory, let q = d.queue,
            Int(p.pointee.index) < q.slots.count
        else { throw .invalidArgument }
        let index = Int(p.pointee.index)
        guard q.slots[index].state == .idle else { throw .invalidArgument }
        q.slots[index].state = .queued
        q.slots[index].error = false
        q.queued.append(index)
        d.waitingForBuffers = false
        describe(d, q, index, p)
        lock.broadcast()
    }

    private func dequeueBuffer(_ h: Handle, _ fd: Int32, _ p: UnsafeMutablePointer<v4l2_buffer>) throws(V4L2Errno) {
        let d = h.device
        if let owner = d.owner, owner != fd { throw .busy }
        guard p.pointee.type == Self.captureType, p.pointee.memory == Self.mmapMemory else { throw .invalidArgument }
        while true {
            guard !d.gone else { throw .noDevice }
            guard d.streaming, let q = d.queue else { throw .invalidArgument }
            catchUp(d)
            if !q.done.isEmpty {
                let index = q.done.removeFirst()
                q.slots[index].state = .idle
                describe(d, q, index, p)
                return
            }
            if h.nonBlocking {
                againCounter += 1
                throw .again
            }
            // Blocking: wait for the next frame (or a STREAMOFF/unplug), at most a second per round.
            lock.wait(until: q.queued.isEmpty ? MonotonicClock.now() + .seconds(1) : d.nextFrameTime)
        }
    }

    private func streamOn(_ d: Device, _ fd: Int32, _ type: Int32) throws(V4L2Errno) {
        guard UInt32(bitPattern: type) == Self.captureType else { throw .invalidArgument }
        if let owner = d.owner, owner != fd { throw .busy }
        guard let q = d.queue else { throw .invalidArgument }
        if d.streaming { return }
        if d.pattern == nil {
            d.pattern = SimulatedPattern(
                fourCC: d.fourCC, width: d.width, height: d.height, bytesPerLine: d.bytesPerLine, sizeImage: q.length)
        }
        d.streaming = true
        d.streamStart = MonotonicClock.now()
        d.produced = 0
        lock.broadcast()
    }

    private func streamOff(_ d: Device, _ fd: Int32, _ type: Int32) throws(V4L2Errno) {
        guard UInt32(bitPattern: type) == Self.captureType else { throw .invalidArgument }
        if let owner = d.owner, owner != fd { throw .busy }
        d.streaming = false
        if let q = d.queue {
            for i in q.slots.indices { q.slots[i].state = .idle }
            q.queued.removeAll()
            q.done.removeAll()
            d.waitingForBuffers = true
        }
        lock.broadcast()
    }

    /// Writes `text` NUL-terminated into a fixed-size C character array (truncating, as the kernel's strscpy).
    private func write<T>(_ text: String, into tuple: inout T) {
        withUnsafeMutableBytes(of: &tuple) { raw in
            raw.initializeMemory(as: UInt8.self, repeating: 0)
            for (i, b) in text.utf8.prefix(raw.count - 1).enumerated() { raw[i] = b }
        }
    }
}
