import Synchronization
import TokKitMedia

/// A test video source: I420 frames whose left half is bright (luma ``brightLuma``) and right half dark
/// (``darkLuma``), neutral chroma, at a fixed size and rate. A decoder on the far side can check that what it got
/// is this picture (see ``PatternCheck``) despite lossy coding.
///
/// ``startCapture()`` starts a ``PeriodicThread`` named `tk-pattern`; each tick hands the consumer one buffer the
/// capturer owns (allocated once in ``initCapture()``) as a borrowed frame. Control calls are Mutex-guarded.
public final class PatternCapturer: VideoCapture {
    public static let brightLuma: UInt8 = 200
    public static let darkLuma: UInt8 = 40

    public let width: Int
    public let height: Int
    public let framesPerSecond: Double

    private struct Control {
        weak var consumer: (any VideoCaptureConsumer)?
        var hint = VideoContentHint.motion
        var thread: PeriodicThread?
        var buffer: [UInt8]?
    }

    private let control = Mutex(Control())
    private let counter = FrameCounter()

    public init(width: Int = 320, height: Int = 240, framesPerSecond: Double = 30) {
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
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
        let format = captureSettings()
        var pixels = [UInt8](repeating: 128, count: format.minimumFrameSize)
        for row in 0..<height {
            for column in 0..<width {
                pixels[row * width + column] = column < width / 2 ? Self.brightLuma : Self.darkLuma
            }
        }
        control.withLock { $0.buffer = pixels }
    }

    public func releaseCapture() {
        stopCapture()
        control.withLock { $0.buffer = nil }
    }

    public func startCapture() throws(VideoCaptureError) {
        let format = captureSettings()
        let ready: Bool = control.withLock { c in
            guard c.thread == nil, let pixels = c.buffer, let consumer = c.consumer else { return c.thread != nil }
            let ySize = width * height, cSize = (width / 2) * (height / 2)
            let counter = self.counter
            let frame = UnsafeMutableRawBufferPointer.allocate(byteCount: pixels.count, alignment: 64)
            frame.copyBytes(from: pixels)
            let holder = BufferHolder(frame)
            let lease = FrameLease()
            c.thread = PeriodicThread(name: "tk-pattern", interval: .seconds(1 / framesPerSecond)) { [weak consumer] in
                guard let consumer else { return false }
                let b = UnsafeRawBufferPointer(holder.buffer)
                do {
                    try lease.lend(
                        format: format, borrowing: UnsafeRawBufferPointer(rebasing: b[0..<ySize]),
                        UnsafeRawBufferPointer(rebasing: b[ySize..<(ySize + cSize)]),
                        UnsafeRawBufferPointer(rebasing: b[(ySize + cSize)..<(ySize + 2 * cSize)])
                    ) { video in consumer.consumeFrame(video) }
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

/// Frames delivered, shared with the capture thread.
private final class FrameCounter: Sendable {
    let delivered = Atomic<Int>(0)
}

/// Owns the capturer's frame memory for the lifetime of its capture thread.
private final class BufferHolder: @unchecked Sendable {
    let buffer: UnsafeMutableRawBufferPointer
    init(_ buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }
    deinit { buffer.deallocate() }
}
