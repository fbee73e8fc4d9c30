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
    public let path: String
    /// The frame rate to play at instead of the file's.
    public let framesPerSecondOverride: Double?
    /// Whether playback restarts at the first frame after the last.
    public let loops: Bool

    private enum Phase {
        case created
        case initialized
        case started(PeriodicThread)
        case released
    }

    private struct Control {
        var phase = Phase.created
        /// Unretained, as the SDK's `assign` property: a ``LocalPreview`` owns its capturer, not the reverse.
        weak var consumer: (any VideoCaptureConsumer)?
        var hint = VideoContentHint.none
        var header: Y4MStreamHeader?
    }

    private let control = Mutex(Control())
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
        get { control.withLock { $0.consumer } }
        set { control.withLock { $0.consumer = newValue } }
    }

    public var videoContentHint: VideoContentHint {
        get { control.withLock { $0.hint } }
        set { control.withLock { $0.hint = newValue } }
    }

    /// Frames handed to the consumer since the capturer was created.
    public var framesDelivered: Int { playback.delivered.load(ordering: .relaxed) }

    /// Opens the file and reads its header.
    ///
    /// - Throws: ``VideoCaptureError/invalidFile(path:reason:)`` when the file is missing, unreadable, not a
    ///   Y4M file, or of another colour space (the reason is the ``MediaFileError``'s description);
    ///   ``VideoCaptureError/permissionDenied(_:)`` when it may not be read; ``VideoCaptureError/noUsableFormat(_:)``
    ///   when the frame rate (the file's or the override) is outside ``playableRates``.
    public func initCapture() throws(VideoCaptureError) {
        let playing = control.withLock { c in
            if case .started = c.phase { return true }
            return false
        }
        guard !playing else { return }  // already running: keep the file being played
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
        control.withLock { c in
            c.header = header
            c.phase = .initialized
        }
    }

    /// Starts playback from where it stopped (from the first frame after ``initCapture()``).
    ///
    /// - Throws: ``VideoCaptureError/notInitialized`` before ``initCapture()`` or after ``releaseCapture()``.
    public func startCapture() throws(VideoCaptureError) {
        try control.withLock { c throws(VideoCaptureError) in
            switch c.phase {
            case .started: return
            case .created, .released: throw .notInitialized
            case .initialized:
                guard let header = c.header else { throw .notInitialized }
                let fps = framesPerSecondOverride ?? header.framesPerSecond
                let interval = Duration.nanoseconds(Int64((1e9 / fps).rounded()))
                let (playback, consumer) = (playback, c.consumer)
                playback.running.store(true, ordering: .releasing)
                c.phase = .started(PeriodicThread(name: "tk-y4m", interval: interval) { playback.tick(consumer) })
            }
        }
    }

    /// Stops playback; when it returns no frame is being delivered (unless called from the consumer, on the
    /// capture thread, where it only asks).
    public func stopCapture() {
        let thread: PeriodicThread? = control.withLock { c in
            guard case let .started(thread) = c.phase else { return nil }
            c.phase = .initialized
            return thread
        }
        thread?.stop()
        playback.running.store(false, ordering: .releasing)
    }

    /// Stops playback and closes the file.
    public func releaseCapture() {
        let onCaptureThread = control.withLock { c in
            if case let .started(thread) = c.phase { return thread.isCurrent }
            return false
        }
        stopCapture()
        control.withLock { $0.phase = .released }
        // From inside the consumer the capture thread still holds the reader: it is closed at deinit instead.
        if !onCaptureThread { playback.reader.withLock { $0 = nil } }
    }

    public var isCaptureStarted: Bool { playback.running.load(ordering: .acquiring) }

    /// I420 at the file's size and frame rate (or the override) after ``initCapture()``; 0×0 before.
    public func captureSettings() -> VideoFormat {
        guard let header = control.withLock({ $0.header }) else { return .i420(width: 0, height: 0) }
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

/// The data-plane half of a ``Y4MFileCapturer``, shared with its capture thread (the capturer itself is not
/// captured, so dropping it stops playback).
private final class Y4MPlayback: Sendable {
    let path: String
    let loops: Bool
    /// Used by the capture thread while started; the control thread takes it only when no thread runs.
    let reader = Mutex<Y4MReader?>(nil)
    let running = Atomic<Bool>(false)
    let delivered = Atomic<Int>(0)

    private enum Step: Sendable {
        case delivered, ended
        case failed(MediaFileError)
    }

    init(path: String, loops: Bool) {
        self.path = path
        self.loops = loops
    }

    /// One tick of the capture thread: reads the next frame and hands it over. Returns `false` to end the thread.
    func tick(_ consumer: (any VideoCaptureConsumer)?) -> Bool {
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
            delivered.add(1, ordering: .relaxed)
            return true
        case .ended:
            running.store(false, ordering: .releasing)
            return false
        case let .failed(error):
            running.store(false, ordering: .releasing)
            consumer?.captureDidFail(Y4MFileCapturer.captureError(error, path: path))
            return false
        }
    }
}
