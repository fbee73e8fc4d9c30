import Synchronization
import TokKitMedia

/// A test video source: solid frames of one colour with the frame counter drawn as 16 binary blocks (white: 1,
/// black: 0) along the top 16 rows, at a fixed size and rate, on a ``PeriodicThread`` named `tk-colour`. Frames
/// come from a small pool, filled on the capture thread (nothing is allocated per frame once the pool is warm).
public final class ColourCapturer: VideoCapture {
    /// Frame width in pixels.
    public let width: Int
    /// Frame height in pixels.
    public let height: Int
    /// Frames per second.
    public let framesPerSecond: Double
    /// The colour, limited-range BT.601 Y, U, V.
    public let colour: (y: UInt8, u: UInt8, v: UInt8)

    private struct Control {
        weak var consumer: (any VideoCaptureConsumer)?
        var hint = VideoContentHint.motion
        var thread: PeriodicThread?
        var initialized = false
    }

    private let control = Mutex(Control())
    private let counter = FrameCounter()

    /// A `width` x `height` source of `colour` at `framesPerSecond`.
    public init(width: Int, height: Int, colour: (y: UInt8, u: UInt8, v: UInt8), framesPerSecond: Double = 30) {
        self.width = width
        self.height = height
        self.colour = colour
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

    public func initCapture() throws(VideoCaptureError) { control.withLock { $0.initialized = true } }

    public func releaseCapture() {
        stopCapture()
        control.withLock { $0.initialized = false }
    }

    public func startCapture() throws(VideoCaptureError) {
        let format = captureSettings()
        let (width, height, colour) = (self.width, self.height, self.colour)
        let ready: Bool = control.withLock { c in
            guard c.thread == nil, c.initialized, let consumer = c.consumer else { return c.thread != nil }
            let pool = VideoFramePool(capacity: 4)
            let counter = self.counter
            c.thread = PeriodicThread(name: "tk-colour", interval: .seconds(1 / framesPerSecond)) { [weak consumer] in
                guard let consumer else { return false }
                let count = counter.delivered.load(ordering: .relaxed)
                guard let frame = try? pool.makeFrame(format: format) else { return true }  // all held: skip one
                frame.withMutablePlanes { p in
                    let luma = p[0]
                    _ = luma.initializeMemory(as: UInt8.self, repeating: colour.y)
                    _ = p[1].initializeMemory(as: UInt8.self, repeating: colour.u)
                    _ = p[2].initializeMemory(as: UInt8.self, repeating: colour.v)
                    for bit in 0..<min(16, width / 16) {
                        let value: UInt8 = (count >> bit) & 1 == 1 ? 235 : 16
                        for row in 0..<min(16, height) {
                            for column in 0..<16 { luma[row * width + bit * 16 + column] = value }
                        }
                    }
                }
                consumer.consumeFrame(frame)
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
