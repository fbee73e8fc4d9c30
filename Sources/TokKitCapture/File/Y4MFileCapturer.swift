import Synchronization

/// Plays a YUV4MPEG2 (`.y4m`) file as a video source: I420 frames at the file's frame rate (or an override),
/// once or in a loop.
///
/// ``initCapture()`` opens the file and checks its header (8-bit 4:2:0 only, see ``Y4MStreamHeader``);
/// ``startCapture()`` starts a ``PeriodicThread`` named `tk-y4m` that reads one frame per tick into a buffer
/// the capturer owns and hands it to the consumer as a **borrowed** frame (the consumer copies or converts it
/// before returning): nothing is allocated per frame.
///
/// At the end of the file the capturer loops back to the first frame when ``loops`` is set, otherwise it stops
/// on its own (``isCaptureStarted`` turns false). A malformed `FRAME` header, a truncated frame or a read
/// error stops it too, after reporting ``VideoCaptureError/invalidFile(path:reason:)`` (or
/// ``VideoCaptureError/systemError(operation:errno:)``) through ``VideoCaptureConsumer/captureDidFail(_:)``.
///
/// Control calls follow ``VideoCapture``'s contract (one control thread at a time); they are Mutex-guarded.
public final class Y4MFileCapturer: VideoCapture {
    /// The `.y4m` file played.
    public let path: String
    /// The frame rate to play at instead of the file's.
    public let framesPerSecondOverride: Double?
    /// Whether playback restarts at the first frame after the last.
    public let loops: Bool

    private let capture = PacedCapture(threadName: "tk-y4m", hint: .none)
    private let header = Mutex<Y4MStreamHeader?>(nil)
    private let playback: Y4MPlayback

    /// The frame rates the capturer plays at.
    public static let playableRates = 0.1...1000.0

    /// A capturer for `path`, opened by ``initCapture()``.
    /// - Parameters:
    ///   - framesPerSecond: plays at this rate instead of the file's `F` tag (within ``playableRates``).
    ///   - loops: restarts at the first frame after the last instead of stopping.
    public init(path: String, framesPerSecond: Double? = nil, loops: Bool = false) {
        self.path = path
        self.framesPerSecondOverride = framesPerSecond
        self.loops = loops
        playback = Y4MPlayback(path: path, loops: loops)
    }

    deinit { stopCapture() }

    /// Who receives the frames, held weakly (keep it alive yourself; ``LocalPreview`` is kept by its owner).
    /// Read once by ``startCapture()``, which keeps it until ``stopCapture()``.
    public var videoCaptureConsumer: (any VideoCaptureConsumer)? {
        get { capture.consumer }
        set { capture.consumer = newValue }
    }

    /// The hint handed on with the frames; none by default (a file can be anything).
    public var videoContentHint: VideoContentHint {
        get { capture.hint }
        set { capture.hint = newValue }
    }

    /// Frames handed to the consumer since the capturer was created.
    public var framesDelivered: Int { capture.framesDelivered }

    /// Opens the file and reads its header.
    ///
    /// - Throws: ``VideoCaptureError/invalidFile(path:reason:)`` when the file is missing, unreadable, not a
    ///   Y4M file, or of another colour space (the reason is the ``MediaFileError``'s description);
    ///   ``VideoCaptureError/permissionDenied(_:)`` when it may not be read; ``VideoCaptureError/noUsableFormat(_:)``
    ///   when the frame rate (the file's or the override) is outside ``playableRates``.
    public func initCapture() throws(VideoCaptureError) {
        guard capture.stage != .started else { return }  // already running: keep the file being played
        let header: Y4MStreamHeader
        do {
            header = try playback.reader.withLock { reader throws(MediaFileError) in
                let opened = try Y4MReader(path: path)
                reader = opened
                return opened.header
            }
        } catch {
            throw Self.captureError(error, path: path)
        }
        let fps = framesPerSecondOverride ?? header.framesPerSecond
        guard Self.playableRates.contains(fps) else {
            throw .noUsableFormat("\(path): frame rate \(fps) is outside \(Self.playableRates)")
        }
        self.header.withLock { $0 = header }
        capture.markInitialized()
    }

    /// Starts playback from where it stopped (from the first frame after ``initCapture()``).
    ///
    /// - Throws: ``VideoCaptureError/notInitialized`` before ``initCapture()`` or after ``releaseCapture()``.
    public func startCapture() throws(VideoCaptureError) {
        guard let header = header.withLock({ $0 }) else { throw .notInitialized }
        let fps = framesPerSecondOverride ?? header.framesPerSecond
        try capture.start(every: .nanoseconds(Int64((1e9 / fps).rounded())), source: playback)
    }

    /// Stops playback; when it returns no frame is being delivered (unless called from the consumer, on the
    /// capture thread, where it only asks).
    public func stopCapture() { capture.stop() }

    /// Stops playback and closes the file (at deinit when called from the consumer on the capture thread).
    public func releaseCapture() { capture.release(playback) }

    /// Whether the capture thread runs; false again once playback ended on its own (no ``loops``) or failed.
    public var isCaptureStarted: Bool { capture.isRunning }

    /// I420 at the file's size and frame rate (or the override) after ``initCapture()``; 0×0 before.
    public func captureSettings() -> VideoFormat {
        guard let header = header.withLock({ $0 }) else { return .i420(width: 0, height: 0) }
        var format = header.videoFormat
        format.estimatedFramesPerSecond = framesPerSecondOverride ?? header.framesPerSecond
        return format
    }

    static func captureError(_ error: MediaFileError, path: String) -> VideoCaptureError {
        switch error {
        case .permissionDenied: .permissionDenied(path)
        case let .systemError(operation, _, code): .systemError(operation: "\(operation) \(path)", errno: code)
        default: .invalidFile(path: path, reason: error.description)
        }
    }
}

/// The data-plane half of a ``Y4MFileCapturer``, shared with its capture thread.
private final class Y4MPlayback: PacedFrameSource {
    let path: String
    let loops: Bool
    /// Used by the capture thread while started; the control thread takes it only when no thread runs.
    let reader = Mutex<Y4MReader?>(nil)

    private enum Step: Sendable {
        case delivered, ended
        case failed(MediaFileError)
    }

    init(path: String, loops: Bool) {
        self.path = path
        self.loops = loops
    }

    func deliverFrame(to consumer: (any VideoCaptureConsumer)?) -> PacedFrameResult {
        let step: Step = reader.withLock { reader in
            guard let reader else { return .ended }
            do throws(MediaFileError) {
                if try !reader.readFrame() {
                    guard loops else { return .ended }
                    try reader.rewind()
                    guard try reader.readFrame() else { return .ended }  // a header without frames
                }
            } catch {
                return .failed(error)
            }
            consumer?.consumeFrame(reader.frame())
            return .delivered
        }
        switch step {
        case .delivered:
            return .delivered
        case .ended:
            return .ended
        case let .failed(error):
            consumer?.captureDidFail(Y4MFileCapturer.captureError(error, path: path))
            return .ended
        }
    }

    func free() { reader.withLock { $0 = nil } }
}
