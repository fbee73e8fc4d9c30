import CYUV
import Dispatch
import Synchronization

/// Records the frames it renders to a YUV4MPEG2 file (`C420jpeg`), optionally with numbered image snapshots
/// every N frames. ffmpeg, ffprobe, mpv and ``Y4MFileCapturer`` read the result.
///
/// ## Size and rate
/// The first frame fixes the stream: its size, and its format's ``VideoFormat/estimatedFramesPerSecond`` as the
/// `F` tag (unless a rate is given to the initializer). A later frame of another size is **scaled to the first
/// size** (libyuv box filter through ``VideoConverter``, aspect ratio not preserved); frames in another pixel
/// format are converted to I420, and frames with an ``VideoFrame/orientation`` other than `.up` are rotated
/// upright, before that.
///
/// ## Threads and memory
/// ``renderVideoFrame(_:)`` (one media thread at a time, e.g. a subscriber's decode thread) converts or copies the
/// frame into a bounded pool of `queueDepth + 3` buffers and queues it; a writer thread named `tk-file-render`
/// writes the queue to disk in order. Nothing is allocated per frame. When the disk falls `queueDepth` frames
/// behind, ``QueuePolicy/newestWins`` (the default) drops the **oldest** queued frame to make room, so rendering
/// never waits for the disk (counted in ``framesSkipped``); ``QueuePolicy/waitForDisk`` makes
/// `renderVideoFrame` wait for the writer instead, for offline recording where every frame must reach the file
/// and the caller is not a real-time thread. Snapshots are encoded on the writer thread (one allocation per
/// snapshot).
///
/// ## Errors and closing
/// An unwritable path fails in the initializer. A write error later (disk full) is kept: frames after it are
/// counted as dropped, and ``close()`` throws it. A snapshot that cannot be written is kept the same way, but
/// only stops the snapshots. ``close()`` writes what is queued, flushes, closes the file and returns once it is
/// on disk (as far as the kernel is concerned); frames rendered after it are dropped. Dropping the renderer
/// closes it too, ignoring errors.
public final class FileRenderer: VideoRender {
    /// What ``renderVideoFrame(_:)`` does when `queueDepth` frames already wait for the disk.
    public enum QueuePolicy: Sendable, Hashable {
        /// Drop the oldest queued frame (counted in ``framesSkipped``): rendering never waits for the disk.
        case newestWins
        /// Wait until the writer has written a frame: the file gets every frame, rendering may block.
        case waitForDisk
    }

    /// Numbered image files written every `every` frames: frame `n` (counted from 0, every multiple of `every`)
    /// goes to `<pathPrefix><n, 6 digits>.<png|pgm>`, e.g. `/tmp/snap-000030.png`.
    public struct Snapshots: Sendable, Hashable {
        /// Write frame `n` when `n` is a multiple of `every` (1 writes every frame; `Int.max`, only the first).
        public var every: Int
        /// Path up to the frame number, directory included, e.g. `/tmp/snap-`.
        public var pathPrefix: String
        /// PNG RGB snapshots are converted from I420 by libyuv; grayscale ones (PNG or PGM) are the Y plane.
        public var format: ImageFileFormat

        /// Snapshots of every `every`-th frame to `pathPrefix` + 6-digit frame number, in `format`.
        public init(every: Int, pathPrefix: String, format: ImageFileFormat = .pngRGB) {
            self.every = every
            self.pathPrefix = pathPrefix
            self.format = format
        }

        /// The file name of frame `index`.
        public func path(forFrame index: Int) -> String {
            let digits = String(index)
            let padded = String(repeating: "0", count: max(0, 6 - digits.count)) + digits
            return pathPrefix + padded + (format == .pgm ? ".pgm" : ".png")
        }
    }

    /// The Y4M file being written.
    public let path: String
    /// The numbered snapshots taken besides the recording, if any.
    public let snapshots: Snapshots?
    /// What happens when the writer falls behind: drop the oldest queued frame, or wait.
    public let queuePolicy: QueuePolicy
    private let recording: FileRecording
    private let preparation: Mutex<FramePreparation>
    private let thread: MediaThread

    /// Creates (or truncates) `path` and starts the writer thread.
    ///
    /// - Parameters:
    ///   - framesPerSecond: the `F` tag to write; default: the first frame's estimated rate.
    ///   - snapshots: image files to write every N frames (`every` must be positive).
    ///   - queueDepth: frames that may wait for the disk (at least 1).
    ///   - queuePolicy: what a full queue does: drop its oldest frame (default) or make rendering wait.
    /// - Throws: ``MediaFileError/noSuchFile(path:)`` when the directory does not exist,
    ///   ``MediaFileError/permissionDenied(path:)``, ``MediaFileError/isDirectory(path:)`` or another system error;
    ///   ``MediaFileError/invalidArgument(_:)`` for a snapshot interval or queue depth below 1.
    public convenience init(
        path: String, framesPerSecond: Double? = nil, snapshots: Snapshots? = nil, queueDepth: Int = 8,
        queuePolicy: QueuePolicy = .newestWins
    ) throws(MediaFileError) {
        try self.init(path: path, framesPerSecond: framesPerSecond, snapshots: snapshots, queueDepth: queueDepth,
                      queuePolicy: queuePolicy, beforeEachWrite: nil)
    }

    /// The designated initializer; `beforeEachWrite` runs on the writer thread before each frame is written (test
    /// seam: a slow disk).
    init(
        path: String, framesPerSecond: Double?, snapshots: Snapshots?, queueDepth: Int, queuePolicy: QueuePolicy,
        beforeEachWrite: (@Sendable () -> Void)?
    ) throws(MediaFileError) {
        guard queueDepth >= 1 else { throw .invalidArgument("queue depth \(queueDepth) is below 1") }
        if let snapshots, snapshots.every < 1 {
            throw .invalidArgument("snapshot interval \(snapshots.every) is below 1")
        }
        let writer = try Y4MWriter(path: path)
        self.path = path
        self.snapshots = snapshots
        self.queuePolicy = queuePolicy
        recording = FileRecording(
            writer: writer, depth: queueDepth, policy: queuePolicy, snapshots: snapshots,
            framesPerSecond: framesPerSecond, beforeEachWrite: beforeEachWrite)
        // Room for every queued frame, the one being written, and the two a conversion and a scale hold at once.
        preparation = Mutex(FramePreparation(pool: VideoFramePool(capacity: queueDepth + 3)))
        let recording = recording
        thread = MediaThread(name: "tk-file-render") { _ in recording.runWriter() }
    }

    deinit { try? close() }

    /// Queues `frame` for the file (see the type's documentation for conversions and the full queue).
    public func renderVideoFrame(_ frame: VideoFrame) {
        recording.received.add(1, ordering: .relaxed)
        guard recording.isAccepting else {
            recording.dropped.add(1, ordering: .relaxed)
            return
        }
        switch queuePolicy {
        case .waitForDisk:
            recording.slots.wait()  // bounded queue: waits while the writer is `queueDepth` frames behind
        case .newestWins:
            recording.makeRoom()  // before preparing: the dropped frame's buffer goes back to the pool
        }
        let prepared: VideoFrame? = preparation.withLock { p in try? p.prepare(frame) }
        guard let prepared else {
            if queuePolicy == .waitForDisk { recording.slots.signal() }
            recording.dropped.add(1, ordering: .relaxed)
            return
        }
        recording.enqueue(prepared)
    }

    /// Writes the queued frames, flushes and closes the file; later frames are dropped. Idempotent.
    ///
    /// - Throws: ``error``: the file's first write error (e.g. ``MediaFileError/noSpace(path:)``), else the
    ///   snapshots' first.
    public func close() throws(MediaFileError) {
        recording.requestClose()
        thread.stop()
        try recording.finish()
    }

    /// Frames handed to ``renderVideoFrame(_:)``.
    public var framesReceived: Int { recording.received.load(ordering: .relaxed) }
    /// Frames written to the file.
    public var framesWritten: Int { recording.written.load(ordering: .relaxed) }
    /// Frames not written: unconvertible, dropped from a full queue (``framesSkipped``), or rendered after an
    /// error or ``close()``.
    public var framesDropped: Int { recording.dropped.load(ordering: .relaxed) }
    /// Frames dropped from a full queue to make room for a newer one (``QueuePolicy/newestWins``: the disk was
    /// `queueDepth` frames behind).
    public var framesSkipped: Int { recording.skipped.load(ordering: .relaxed) }
    /// Snapshot files written.
    public var snapshotsWritten: Int { recording.snapshotsWritten.load(ordering: .relaxed) }
    /// The first error met while recording, if any: the file's (which stopped the recording), else the
    /// snapshots' (which stopped them).
    public var error: MediaFileError? { recording.failures.withLock { $0.file ?? $0.snapshot } }
    /// The stream's size, fixed by the first frame.
    public var streamSize: (width: Int, height: Int)? {
        preparation.withLock { p in p.streamFormat.map { ($0.width, $0.height) } }
    }
}

/// Turns rendered frames into I420 frames of the stream's size in pooled memory (render thread side).
private struct FramePreparation {
    let converter: VideoConverter
    /// Set by the first frame.
    var streamFormat: VideoFormat?

    init(pool: VideoFramePool) { converter = VideoConverter(pool: pool) }

    /// `frame` as I420, upright, of the stream's size, in this pool's memory (never the sender's: a borrowed
    /// frame dies when the call returns, and holding a pooled one would starve the sender's pool).
    mutating func prepare(_ frame: VideoFrame) throws(VideoFrameError) -> VideoFrame {
        var i420 = frame
        var inOurPool = false
        if i420.format.pixelFormat != .i420 {
            i420 = try converter.convert(i420, to: .i420)
            inOurPool = true
        }
        if i420.orientation != .up {
            i420 = try converter.rotateUpright(i420)
            inOurPool = true
        }
        let target = streamFormat ?? i420.format
        if streamFormat == nil { streamFormat = target }
        if i420.format.width != target.width || i420.format.height != target.height {
            return try converter.scale(i420, width: target.width, height: target.height)
        }
        return inOurPool ? i420 : try i420.copy(using: converter.pool)
    }
}

/// The state shared by a ``FileRenderer`` and its writer thread.
private final class FileRecording: Sendable {
    /// Free queue places (``FileRenderer/QueuePolicy/waitForDisk`` only).
    let slots: DispatchSemaphore
    /// One signal per frame queued (some of whose frames may have been dropped since) plus the close request.
    private let items = DispatchSemaphore(value: 0)
    private let policy: FileRenderer.QueuePolicy
    private let beforeEachWrite: (@Sendable () -> Void)?
    private let queue: Mutex<FrameRing>
    private let closing = Atomic<Bool>(false)
    /// The file, used by the writer thread until it ends, then by ``finish()``.
    private let writer: Mutex<Y4MWriter?>
    private let snapshots: Snapshots?
    private let framesPerSecond: Double?
    /// Reused RGB buffer for snapshots (writer thread only).
    private let rgb = Mutex<[UInt8]>([])

    let received = Atomic<Int>(0)
    let written = Atomic<Int>(0)
    let dropped = Atomic<Int>(0)
    let skipped = Atomic<Int>(0)
    let snapshotsWritten = Atomic<Int>(0)
    /// The first error of the file (which stops the recording) and of the snapshots (which stops them).
    let failures = Mutex<(file: MediaFileError?, snapshot: MediaFileError?)>((nil, nil))

    typealias Snapshots = FileRenderer.Snapshots

    init(writer: sending Y4MWriter, depth: Int, policy: FileRenderer.QueuePolicy, snapshots: Snapshots?,
         framesPerSecond: Double?, beforeEachWrite: (@Sendable () -> Void)?) {
        slots = DispatchSemaphore(value: depth)
        self.policy = policy
        self.beforeEachWrite = beforeEachWrite
        queue = Mutex(FrameRing(capacity: depth))
        self.writer = Mutex(writer)
        self.snapshots = snapshots
        self.framesPerSecond = framesPerSecond
    }

    /// Whether new frames are still written (not closing, no write error).
    var isAccepting: Bool {
        !closing.load(ordering: .acquiring) && failures.withLock { $0.file == nil }
    }

    func enqueue(_ frame: VideoFrame) {
        queue.withLock { $0.push(frame) }
        items.signal()
    }

    /// Newest-wins: drops the oldest queued frame when the queue is full (its `items` signal stays; the writer
    /// skips the empty wake-up). The render thread is the only producer, so the queue then has room for one.
    func makeRoom() {
        let evicted: VideoFrame? = queue.withLock { $0.isFull ? $0.pop() : nil }
        guard evicted != nil else { return }
        skipped.add(1, ordering: .relaxed)
        dropped.add(1, ordering: .relaxed)
    }

    func requestClose() {
        guard !closing.exchange(true, ordering: .acquiringAndReleasing) else { return }
        items.signal()  // with nothing queued behind it: the writer ends after the frames before
    }

    /// The writer thread's body: writes queued frames in order until a close request finds the queue empty.
    /// Each wake-up takes one `items` signal; there is always one more signal than frames written (the close
    /// request, plus one per frame dropped by ``makeRoom()``), so after the close the writer always wakes to an
    /// empty queue.
    func runWriter() {
        var index = 0
        while true {  // ends on the close request, which requestClose() always sends once
            items.wait()
            guard let frame = queue.withLock({ $0.pop() }) else {
                if closing.load(ordering: .acquiring) { return }
                continue  // the signal of a frame makeRoom() dropped
            }
            beforeEachWrite?()
            write(frame, index: index)
            index += 1
            if policy == .waitForDisk { slots.signal() }  // the frame's buffer is back in the pool
        }
    }

    /// Closes the file (after the writer thread has ended) and reports the first error. A frame queued by a render
    /// call racing with the close is counted as dropped.
    func finish() throws(MediaFileError) {
        while queue.withLock({ $0.pop() }) != nil { dropped.add(1, ordering: .relaxed) }
        let closeError: MediaFileError? = writer.withLock { w in
            defer { w = nil }
            do throws(MediaFileError) { try w?.close() } catch { return error }
            return nil
        }
        if let closeError { failures.withLock { f in f.file = f.file ?? closeError } }
        if let error = failures.withLock({ $0.file ?? $0.snapshot }) { throw error }
    }

    private func write(_ frame: VideoFrame, index: Int) {
        guard failures.withLock({ $0.file == nil }) else {
            dropped.add(1, ordering: .relaxed)
            return
        }
        let result: MediaFileError? = writer.withLock { w in
            guard let w else { return .closed }
            do throws(MediaFileError) {
                if w.header == nil {
                    let fps = framesPerSecond ?? frame.format.estimatedFramesPerSecond
                    try w.writeHeader(
                        Y4MStreamHeader(
                            width: frame.format.width, height: frame.format.height,
                            frameRate: .approximating(fps)))
                }
                try w.write(frame)
            } catch {
                return error
            }
            return nil
        }
        if let result {
            failures.withLock { f in f.file = f.file ?? result }
            dropped.add(1, ordering: .relaxed)
            return
        }
        written.add(1, ordering: .relaxed)
        if let snapshots, index % snapshots.every == 0, failures.withLock({ $0.snapshot == nil }) {
            do throws(MediaFileError) {
                try snapshot(frame, to: snapshots.path(forFrame: index), format: snapshots.format)
                snapshotsWritten.add(1, ordering: .relaxed)
            } catch {
                failures.withLock { f in f.snapshot = f.snapshot ?? error }
            }
        }
    }

    private func snapshot(_ frame: VideoFrame, to path: String, format: ImageFileFormat) throws(MediaFileError) {
        let f = frame.format
        let read: Result<Void, MediaFileError>? = try? frame.withPlanes { planes in
            switch format {
            case .pgm:
                return Result { () throws(MediaFileError) in
                    try PGMWriter.write(
                        to: path, width: f.width, height: f.height, pixels: planes[0], bytesPerRow: f.bytesPerRow[0])
                }
            case .png:
                return Result { () throws(MediaFileError) in
                    try PNGWriter.write(
                        to: path, width: f.width, height: f.height, color: .grayscale, pixels: planes[0],
                        bytesPerRow: f.bytesPerRow[0])
                }
            case .pngRGB:
                return rgb.withLock { rgb in
                    let size = f.width * f.height * 3
                    if rgb.count != size { rgb = [UInt8](repeating: 0, count: size) }
                    let rc = rgb.withUnsafeMutableBufferPointer { out in
                        func p(_ i: Int) -> UnsafePointer<UInt8> { planes[i].baseAddress!.assumingMemoryBound(to: UInt8.self) }
                        // libyuv "RAW" is R, G, B in memory order, as PNG wants.
                        return I420ToRAW(
                            p(0), Int32(f.bytesPerRow[0]), p(1), Int32(f.bytesPerRow[1]), p(2), Int32(f.bytesPerRow[2]),
                            out.baseAddress!, Int32(f.width * 3), Int32(f.width), Int32(f.height))
                    }
                    guard rc == 0 else { return .failure(.invalidArgument("libyuv I420ToRAW refused the frame (\(rc))")) }
                    return rgb.withUnsafeBytes { bytes in
                        Result { () throws(MediaFileError) in
                            try PNGWriter.write(to: path, width: f.width, height: f.height, color: .rgb, pixels: bytes)
                        }
                    }
                }
            }
        }
        try (read ?? .failure(.expiredFrame)).get()
    }

}

/// A fixed-capacity FIFO of frames (allocated once).
private struct FrameRing {
    private var slots: [VideoFrame?]
    private var head = 0
    private var count = 0

    init(capacity: Int) { slots = Array(repeating: nil, count: capacity) }

    /// Appends; the caller's semaphore guarantees there is room.
    mutating func push(_ frame: VideoFrame) {
        precondition(count < slots.count, "frame queue overflow")
        slots[(head + count) % slots.count] = frame
        count += 1
    }

    var isFull: Bool { count == slots.count }

    /// Removes the oldest frame (its slot is cleared so the pool gets the buffer back).
    mutating func pop() -> VideoFrame? {
        guard count > 0 else { return nil }
        defer {
            slots[head] = nil
            head = (head + 1) % slots.count
            count -= 1
        }
        return slots[head]
    }
}
