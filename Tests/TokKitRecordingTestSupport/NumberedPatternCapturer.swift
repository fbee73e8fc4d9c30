import TokKitMedia
import TokKitTesting

/// A live video source of ``RecordingTestMedia``'s numbered pattern: frame `n` shows
/// ``RecordingTestMedia/luma(index:width:height:)`` of `n % loop` (neutral chroma), so a decoded picture names the
/// source frame it came from (``RecordingTestMedia/frameNumber(inLuma:width:)``) and can be compared with it.
///
/// The `loop` pictures are drawn once in ``initCapture()``; ``startCapture()`` starts a ``PeriodicThread`` named
/// `tk-numbered` that lends the consumer the next one each tick (``LoopedPictures``: nothing is allocated per
/// frame).
public final class NumberedPatternCapturer: PacedVideoCapture {
    /// Frame width in pixels (at least 64: the number needs its blocks).
    public let width: Int
    /// Frame height in pixels.
    public let height: Int
    /// Frames per second.
    public let framesPerSecond: Double
    /// Distinct pictures before the sequence starts again.
    public let loop: Int

    public let pacedCapture = PacedCapture(threadName: "tk-numbered", hint: .motion)
    public let frameSource: LoopedPictures

    /// A `width` x `height` source at `framesPerSecond` cycling through `loop` numbered pictures. `pick` chooses each
    /// tick's picture and timestamp on the capture thread (``LoopedPictures/Pick``; by default picture `tick`, the
    /// time of delivery): a benchmark logs capture times there.
    public init(width: Int = 320, height: Int = 240, framesPerSecond: Double = 30, loop: Int = 120,
                pick: @escaping LoopedPictures.Pick = { ($0, nil) }) {
        precondition(width >= 64 && height >= 64 && width % 2 == 0 && height % 2 == 0 && loop > 0)
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        self.loop = loop
        frameSource = LoopedPictures(pick: pick)
    }

    deinit { stopCapture() }

    public func initCapture() throws(VideoCaptureError) {
        guard pacedCapture.stage != .started, !frameSource.isPrepared else {
            pacedCapture.markInitialized()
            return
        }
        let (width, height) = (self.width, self.height)
        frameSource.prepare(format: captureSettings(), count: loop) { n, plane in
            RecordingTestMedia.luma(index: n, width: width, height: height).withUnsafeBytes { plane.copyMemory(from: $0) }
        }
        pacedCapture.markInitialized()
    }

    public func captureSettings() -> VideoFormat { .i420(width: width, height: height, fps: framesPerSecond) }
}
