import Synchronization

/// Capturer → consumer → renderer in one process: the path a publisher uses to show its own preview, usable
/// on its own to check a capturer or a renderer.
///
/// Each captured frame is converted to upright I420 (renderers always receive I420) on the capturer's thread
/// and handed to the renderer there. Frames that cannot be converted are counted in ``framesDropped``.
public final class LocalPreview: VideoCaptureConsumer {
    /// The source; ``start()`` makes this preview its consumer.
    public let capturer: any VideoCapture
    /// Where every converted frame goes, on the capturer's thread.
    public let renderer: any VideoRender
    private let converter: Mutex<VideoConverter>
    private let counters = Mutex((rendered: 0, dropped: 0, lastError: VideoCaptureError?.none))

    /// A preview of `capturer` on `renderer`; nothing starts until ``start()``.
    public init(capturer: any VideoCapture, renderer: any VideoRender) {
        self.capturer = capturer
        self.renderer = renderer
        converter = Mutex(VideoConverter(pool: VideoFramePool(capacity: 3)))
    }

    /// Attaches itself as the capturer's consumer, then initializes and starts it.
    public func start() throws(VideoCaptureError) {
        capturer.videoCaptureConsumer = self
        try capturer.initCapture()
        do { try capturer.startCapture() } catch {
            capturer.releaseCapture()
            throw error
        }
    }

    /// Stops and releases the capturer. When it returns no frame is being rendered.
    public func stop() {
        capturer.stopCapture()
        capturer.releaseCapture()
    }

    /// Frames handed to the renderer so far.
    public var framesRendered: Int { counters.withLock { $0.rendered } }
    /// Frames that could not be converted (or found the pool full).
    public var framesDropped: Int { counters.withLock { $0.dropped } }
    /// The error the capturer reported, if it failed.
    public var captureError: VideoCaptureError? { counters.withLock { $0.lastError } }

    /// Converts `frame` to upright I420 and renders it, on the capturer's thread; a frame that cannot be converted
    /// is counted in ``framesDropped``.
    public func consumeFrame(_ frame: VideoFrame) {
        let upright: VideoFrame? = converter.withLock { c in
            do {
                let i420 = frame.format.pixelFormat == .i420 ? frame : try c.convert(frame, to: .i420)
                return try c.rotateUpright(i420)
            } catch {
                return nil
            }
        }
        guard let upright else {
            counters.withLock { $0.dropped += 1 }
            return
        }
        renderer.renderVideoFrame(upright)
        counters.withLock { $0.rendered += 1 }
    }

    /// Keeps `error` in ``captureError``; the capturer has stopped.
    public func captureDidFail(_ error: VideoCaptureError) {
        counters.withLock { $0.lastError = error }
    }
}
