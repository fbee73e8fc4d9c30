import TokKitMedia

/// A test video source: I420 frames whose left half is bright (luma ``brightLuma``) and right half dark
/// (``darkLuma``), neutral chroma, at a fixed size and rate. A decoder on the far side can check that what it got
/// is this picture (see ``PatternCheck``) despite lossy coding.
///
/// ``startCapture()`` starts a ``PeriodicThread`` named `tk-pattern`; each tick lends the consumer the one picture
/// drawn by ``initCapture()`` (``LoopedPictures``). Control calls are Mutex-guarded (``PacedCapture``).
public final class PatternCapturer: PacedVideoCapture {
    public static let brightLuma: UInt8 = 200
    public static let darkLuma: UInt8 = 40

    public let width: Int
    public let height: Int
    public let framesPerSecond: Double

    public let pacedCapture = PacedCapture(threadName: "tk-pattern", hint: .motion)
    public let frameSource = LoopedPictures()

    public init(width: Int = 320, height: Int = 240, framesPerSecond: Double = 30) {
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
    }

    deinit { stopCapture() }

    public func initCapture() throws(VideoCaptureError) {
        guard pacedCapture.stage != .started else { return }
        let width = self.width
        frameSource.prepare(format: captureSettings(), count: 1) { _, luma in
            for row in 0..<(luma.count / width) {
                for column in 0..<width {
                    luma[row * width + column] = column < width / 2 ? Self.brightLuma : Self.darkLuma
                }
            }
        }
        pacedCapture.markInitialized()
    }

    public func captureSettings() -> VideoFormat { .i420(width: width, height: height, fps: framesPerSecond) }
}
