/// A source of video frames, as the SDK's `OTVideoCapture`: cameras, screens, files, generators, or yours.
///
/// ## Lifecycle
/// The publisher (or ``LocalPreview``) sets ``videoCaptureConsumer``, then calls ``initCapture()`` once,
/// ``startCapture()`` / ``stopCapture()`` any number of times, and ``releaseCapture()`` once at the end. These
/// control calls come from one control thread at a time, never concurrently.
///
/// ## Frames
/// A started capturer calls ``VideoCaptureConsumer/consumeFrame(_:)`` from **its own thread** (a named
/// ``MediaThread`` or ``PeriodicThread``, never the main thread, never a Swift concurrency task), one frame at a
/// time. It may hand in memory it owns (a borrowed frame), lent through a ``FrameLease`` it keeps for all its frames
/// (``FrameLease/lend(format:borrowing:_:_:timestamp:orientation:to:)``): the consumer copies or converts it before
/// returning, and once `lend` returns the frame is revoked (a copy kept anyway throws ``VideoFrameError/expired``
/// when read), so the capturer may reuse that memory at once.
///
/// ## What a capturer must never do
/// - call `consumeFrame` concurrently from two threads, or after `stopCapture()` has returned;
/// - block inside `stopCapture()` waiting for its own capture thread while being called from it;
/// - free or rewrite borrowed memory before the frame lent over it is revoked (before `lend` returns);
/// - throw away errors: a device that fails mid-stream reports ``VideoCaptureConsumer/captureDidFail(_:)``
///   and stops.
public protocol VideoCapture: AnyObject, Sendable {
    /// Who receives the frames. Set before ``startCapture()``.
    var videoCaptureConsumer: (any VideoCaptureConsumer)? { get set }
    /// What the source shows; the encoder tunes itself by it.
    var videoContentHint: VideoContentHint { get set }
    /// Acquires the device and settles the format. Throws if the source cannot be used.
    func initCapture() throws(VideoCaptureError)
    /// Releases the device. Stops capture first if needed.
    func releaseCapture()
    /// Starts delivering frames to the consumer.
    func startCapture() throws(VideoCaptureError)
    /// Stops delivering frames; when it returns, no `consumeFrame` call is running or will follow.
    func stopCapture()
    /// Whether frames are being delivered.
    var isCaptureStarted: Bool { get }
    /// The format frames will have once started (after ``initCapture()``).
    func captureSettings() -> VideoFormat
}

/// Receives frames from a ``VideoCapture``, as the SDK's `OTVideoCaptureConsumer`.
///
/// Called on the capturer's thread. Implementations return quickly: they convert or copy the frame (it may be
/// borrowed) and hand it on; any slow work belongs on another thread behind a bounded queue.
public protocol VideoCaptureConsumer: AnyObject, Sendable {
    /// One new frame. See ``VideoFrame`` for how long its memory stays valid.
    func consumeFrame(_ frame: VideoFrame)
    /// The source failed and has stopped (device unplugged, display closed). Default: ignored.
    func captureDidFail(_ error: VideoCaptureError)
}

extension VideoCaptureConsumer {
    /// Ignores the failure; implement it to learn that the source stopped.
    public func captureDidFail(_ error: VideoCaptureError) {}
}
