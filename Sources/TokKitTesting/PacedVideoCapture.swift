import TokKitMedia

/// A ``VideoCapture`` made of a ``PacedCapture`` (the control half) and a ``PacedFrameSource`` (what its thread
/// does each tick). Conforming gives the consumer, content hint, stop, release and started state from the
/// ``PacedCapture``, and a start that paces the source at ``VideoFormat/estimatedFramesPerSecond`` of
/// ``VideoCapture/captureSettings()``; the capturer writes its initialization (which calls
/// ``PacedCapture/markInitialized()``) and its format, and may replace any of the rest.
public protocol PacedVideoCapture: VideoCapture {
    /// The thread's per-tick work.
    associatedtype FrameSource: PacedFrameSource

    /// The lifecycle, consumer, hint and frame count.
    var pacedCapture: PacedCapture { get }
    /// Handed to the capture thread at start, freed at release.
    var frameSource: FrameSource { get }
}

extension PacedVideoCapture {
    /// Who receives the frames, held weakly (keep it alive yourself). Read once by ``startCapture()``, which
    /// keeps it until ``stopCapture()``.
    public var videoCaptureConsumer: (any VideoCaptureConsumer)? {
        get { pacedCapture.consumer }
        set { pacedCapture.consumer = newValue }
    }

    /// The hint handed on with the frames.
    public var videoContentHint: VideoContentHint {
        get { pacedCapture.hint }
        set { pacedCapture.hint = newValue }
    }

    /// Frames handed to the consumer since the capturer was created.
    public var framesDelivered: Int { pacedCapture.framesDelivered }

    /// Starts a thread delivering one frame per tick at the format's rate, the first right away.
    ///
    /// - Throws: ``VideoCaptureError/notInitialized`` before ``VideoCapture/initCapture()`` or after
    ///   ``releaseCapture()``.
    public func startCapture() throws(VideoCaptureError) {
        let fps = captureSettings().estimatedFramesPerSecond
        guard fps > 0, fps.isFinite else { throw .noUsableFormat("a capture thread at \(fps) frames per second") }
        try pacedCapture.start(every: .nanoseconds(Int64((1e9 / fps).rounded())), source: frameSource)
    }

    /// Stops delivering; when it returns no frame is being delivered (unless called from the consumer, on the
    /// capture thread, where it only asks).
    public func stopCapture() { pacedCapture.stop() }

    /// Stops and frees the source (at the source's deinit when called from the consumer on the capture thread).
    public func releaseCapture() { pacedCapture.release(frameSource) }

    /// Whether the capture thread delivers frames (false again once the source ended on its own).
    public var isCaptureStarted: Bool { pacedCapture.isRunning }
}
