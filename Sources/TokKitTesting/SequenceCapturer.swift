import Synchronization
import TokKitMedia

/// A test video source that loops a ``PictureSequence`` (640x480: camera-like `textured` content that keeps a 1 Mbps
/// encoder busy, or `pattern`, what Chromium's fake camera shows) at a fixed rate, so a TokKit peer and a browser
/// can be compared on like pictures.
///
/// ``startCapture()`` starts a ``PeriodicThread`` named `tk-sequence`; each tick lends the consumer the next frame
/// of the sequence's own memory (nothing is allocated per frame). Control calls are Mutex-guarded.
public final class SequenceCapturer: VideoCapture {
    public let sequence: PictureSequence
    public let framesPerSecond: Double

    private struct Control {
        weak var consumer: (any VideoCaptureConsumer)?
        var hint = VideoContentHint.motion
        var thread: PeriodicThread?
        var initialized = false
    }

    private let control = Mutex(Control())

    public init(_ content: PictureSequence.Content, framesPerSecond: Double = 30) {
        sequence = PictureSequence(content)
        self.framesPerSecond = framesPerSecond
    }

    deinit { stopCapture() }

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
        let format = captureSettings(), sequence = self.sequence
        let ready: Bool = control.withLock { c in
            guard c.thread == nil, c.initialized, let consumer = c.consumer else { return c.thread != nil }
            let next = Atomic<Int>(0)
            let lease = FrameLease()
            c.thread = PeriodicThread(name: "tk-sequence", interval: .seconds(1 / framesPerSecond)) { [weak consumer] in
                guard let consumer else { return false }
                let index = next.add(1, ordering: .relaxed).oldValue
                return sequence.withFrame(index) { y, u, v in
                    (try? lease.lend(format: format, borrowing: y, u, v) { consumer.consumeFrame($0) }) != nil
                }
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

    public func captureSettings() -> VideoFormat {
        .i420(width: PictureSequence.width, height: PictureSequence.height, fps: framesPerSecond)
    }
}
