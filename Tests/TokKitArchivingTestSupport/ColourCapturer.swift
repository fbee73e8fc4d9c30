import Synchronization
import TokKitMedia
import TokKitTesting

/// A test video source: solid frames of one colour with the frame counter drawn as 16 binary blocks (white: 1,
/// black: 0) along the top 16 rows, at a fixed size and rate, on a ``PeriodicThread`` named `tk-colour`. Frames
/// come from a small pool, filled on the capture thread (nothing is allocated per frame once the pool is warm).
public final class ColourCapturer: PacedVideoCapture {
    /// Frame width in pixels.
    public let width: Int
    /// Frame height in pixels.
    public let height: Int
    /// Frames per second.
    public let framesPerSecond: Double
    /// The colour, limited-range BT.601 Y, U, V.
    public let colour: (y: UInt8, u: UInt8, v: UInt8)

    public let pacedCapture = PacedCapture(threadName: "tk-colour", hint: .motion)
    public let frameSource: ColourFrames

    /// A `width` x `height` source of `colour` at `framesPerSecond`.
    public init(width: Int, height: Int, colour: (y: UInt8, u: UInt8, v: UInt8), framesPerSecond: Double = 30) {
        self.width = width
        self.height = height
        self.colour = colour
        self.framesPerSecond = framesPerSecond
        frameSource = ColourFrames(format: .i420(width: width, height: height, fps: framesPerSecond), colour: colour)
    }

    deinit { stopCapture() }

    public func initCapture() throws(VideoCaptureError) { pacedCapture.markInitialized() }

    public func captureSettings() -> VideoFormat { frameSource.format }
}

/// The data-plane half of a ``ColourCapturer``: paints each frame's counter into a pooled frame.
public final class ColourFrames: PacedFrameSource {
    let format: VideoFormat
    let colour: (y: UInt8, u: UInt8, v: UInt8)
    private let pool = VideoFramePool(capacity: 4)
    private let painted = Atomic<Int>(0)

    init(format: VideoFormat, colour: (y: UInt8, u: UInt8, v: UInt8)) {
        self.format = format
        self.colour = colour
    }

    /// Paints the next frame and hands it to `consumer`; skips the tick when every pooled frame is still held.
    public func deliverFrame(to consumer: (any VideoCaptureConsumer)?) -> PacedFrameResult {
        guard let consumer else { return .ended }
        guard let frame = try? pool.makeFrame(format: format) else { return .skipped }
        let (width, height, colour) = (format.width, format.height, colour)
        let count = painted.add(1, ordering: .relaxed).oldValue
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
        return .delivered
    }

    /// Nothing to free: the pool goes with the source.
    public func free() {}
}
