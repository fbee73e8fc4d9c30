import Synchronization
import TokKitMedia

/// A live video source of ``RecordingTestMedia``'s numbered pattern: frame `n` shows
/// ``RecordingTestMedia/luma(index:width:height:)`` of `n % loop` (neutral chroma), so a decoded picture names the
/// source frame it came from (``RecordingTestMedia/frameNumber(inLuma:width:)``) and can be compared with it.
///
/// The `loop` pictures are computed once in ``initCapture()``; ``startCapture()`` starts a ``PeriodicThread``
/// named `tk-numbered` that lends the consumer the next one each tick (nothing is allocated per frame).
public final class NumberedPatternCapturer: VideoCapture {
    /// Frame width in pixels (at least 64: the number needs its blocks).
    public let width: Int
    /// Frame height in pixels.
    public let height: Int
    /// Frames per second.
    public let framesPerSecond: Double
    /// Distinct pictures before the sequence starts again.
    public let loop: Int

    private struct Control {
        weak var consumer: (any VideoCaptureConsumer)?
        var hint = VideoContentHint.motion
        var thread: PeriodicThread?
        var pictures: Pictures?
    }

    private let control = Mutex(Control())
    private let counter = DeliveredFrames()

    /// A `width` x `height` source at `framesPerSecond` cycling through `loop` numbered pictures.
    public init(width: Int = 320, height: Int = 240, framesPerSecond: Double = 30, loop: Int = 120) {
        precondition(width >= 64 && height >= 64 && width % 2 == 0 && height % 2 == 0 && loop > 0)
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        self.loop = loop
    }

    deinit { stopCapture() }

    /// Frames handed to the consumer so far.
    public var framesDelivered: Int { counter.delivered.load(ordering: .relaxed) }

    public var videoCaptureConsumer: (any VideoCaptureConsumer)? {
        get { control.withLock { $0.consumer } }
        set { control.withLock { $0.consumer = newValue } }
    }

    public var videoContentHint: VideoContentHint {
        get { control.withLock { $0.hint } }
        set { control.withLock { $0.hint = newValue } }
    }

    public func initCapture() throws(VideoCaptureError) {
        guard control.withLock({ $0.pictures == nil }) else { return }
        let pictures = Pictures(width: width, height: height, loop: loop)
        control.withLock { if $0.pictures == nil { $0.pictures = pictures } }
    }

    public func releaseCapture() {
        stopCapture()
        control.withLock { $0.pictures = nil }
    }

    public func startCapture() throws(VideoCaptureError) {
        let format = captureSettings()
        let (loop, counter) = (self.loop, self.counter)
        let ready: Bool = control.withLock { c in
            guard c.thread == nil, let pictures = c.pictures, let consumer = c.consumer else { return c.thread != nil }
            let lease = FrameLease()
            c.thread = PeriodicThread(name: "tk-numbered", interval: .seconds(1 / framesPerSecond)) { [weak consumer] in
                guard let consumer else { return false }
                let n = counter.delivered.load(ordering: .relaxed) % loop
                do {
                    try lease.lend(format: format, borrowing: pictures.luma(n), pictures.chroma, pictures.chroma) {
                        consumer.consumeFrame($0)
                    }
                } catch {
                    return false
                }
                counter.delivered.add(1, ordering: .relaxed)
                return true
            }
            return true
        }
        if !ready { throw .notInitialized }
    }

    public func stopCapture() {
        let thread = control.withLock { c in defer { c.thread = nil }; return c.thread }
        thread?.stop()
    }

    public var isCaptureStarted: Bool { control.withLock { $0.thread != nil } }

    public func captureSettings() -> VideoFormat { .i420(width: width, height: height, fps: framesPerSecond) }
}

/// The loop's luma planes back to back and one neutral chroma plane, owned for the capture thread's lifetime.
private final class Pictures: @unchecked Sendable {
    let lumaSize: Int
    let planes: UnsafeMutableRawBufferPointer
    let neutral: UnsafeMutableRawBufferPointer

    init(width: Int, height: Int, loop: Int) {
        lumaSize = width * height
        planes = .allocate(byteCount: lumaSize * loop, alignment: 64)
        neutral = .allocate(byteCount: lumaSize / 4, alignment: 64)
        _ = neutral.initializeMemory(as: UInt8.self, repeating: 128)
        for n in 0..<loop {
            let luma = RecordingTestMedia.luma(index: n, width: width, height: height)
            luma.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: planes[(n * lumaSize)..<((n + 1) * lumaSize)]).copyMemory(from: $0) }
        }
    }

    func luma(_ n: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(planes)[(n * lumaSize)..<((n + 1) * lumaSize)])
    }

    var chroma: UnsafeRawBufferPointer { UnsafeRawBufferPointer(neutral) }

    deinit {
        planes.deallocate()
        neutral.deallocate()
    }
}

/// Frames delivered, shared with the capture thread.
private final class DeliveredFrames: Sendable {
    let delivered = Atomic<Int>(0)
}
