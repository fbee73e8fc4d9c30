import Synchronization
import TokKitMedia

/// A test video source that loops a ``PictureSequence`` (640x480: camera-like `textured` content that keeps a 1 Mbps
/// encoder busy, or `pattern`, what Chromium's fake camera shows) at a fixed rate, so a TokKit peer and a browser
/// can be compared on like pictures.
///
/// ``startCapture()`` starts a ``PeriodicThread`` named `tk-sequence`; each tick lends the consumer the next frame
/// of the sequence's own memory (nothing is allocated per frame). Control calls are Mutex-guarded
/// (``PacedCapture``).
public final class SequenceCapturer: PacedVideoCapture {
    public let sequence: PictureSequence
    public let framesPerSecond: Double

    public let pacedCapture = PacedCapture(threadName: "tk-sequence", hint: .motion)
    public let frameSource: SequenceFrames

    public init(_ content: PictureSequence.Content, framesPerSecond: Double = 30) {
        sequence = PictureSequence(content)
        self.framesPerSecond = framesPerSecond
        frameSource = SequenceFrames(sequence: sequence,
                                     format: .i420(width: PictureSequence.width, height: PictureSequence.height,
                                                   fps: framesPerSecond))
    }

    deinit { stopCapture() }

    public func initCapture() throws(VideoCaptureError) { pacedCapture.markInitialized() }

    public func captureSettings() -> VideoFormat { frameSource.format }
}

/// The data-plane half of a ``SequenceCapturer``: lends the sequence's frames in turn.
public final class SequenceFrames: PacedFrameSource {
    let sequence: PictureSequence
    let format: VideoFormat
    private let next = Atomic<Int>(0)
    private let lease = FrameLease()

    init(sequence: PictureSequence, format: VideoFormat) {
        self.sequence = sequence
        self.format = format
    }

    /// Lends the next frame of the sequence.
    public func deliverFrame(to consumer: (any VideoCaptureConsumer)?) -> PacedFrameResult {
        guard let consumer else { return .ended }
        let index = next.add(1, ordering: .relaxed).oldValue
        let lent = sequence.withFrame(index) { y, u, v in
            (try? lease.lend(format: format, borrowing: y, u, v) { consumer.consumeFrame($0) }) != nil
        }
        return lent ? .delivered : .ended
    }

    /// Nothing to free: the sequence owns its memory.
    public func free() {}
}
