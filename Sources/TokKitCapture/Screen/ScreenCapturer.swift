import Synchronization

/// Captures an X11 screen, a region of it, or one window, as the SDK's screen-sharing capturer: a
/// ``VideoCapture`` delivering ARGB frames (bytes B,G,R,X, the layout of X11 32-bit ZPixmap images) at a low
/// rate (5 fps by default) with the content hint ``VideoContentHint/detail``.
///
/// ## Memory
/// With MIT-SHM (the default when the server offers it), the X server writes each frame straight into a
/// shared-memory segment and the consumer receives that segment as a **borrowed** frame: no copy, no
/// allocation per frame. The segment is rewritten only by the next grab, after `consumeFrame` has returned.
/// Without MIT-SHM (remote display, ``ScreenCaptureOptions/usesSharedMemory`` off), `XGetImage` reads the
/// pixels through the socket into an image Xlib allocates, handed over borrowed and freed after the call.
///
/// ## Threading
/// Control calls (``initCapture()``, ``startCapture()``, ``stopCapture()``, ``releaseCapture()``) come from one
/// control thread at a time, per ``VideoCapture``. Frames are grabbed and delivered on the capturer's own
/// ``PeriodicThread`` (named by ``ScreenCaptureOptions/threadName``), which alone uses the X connection while
/// capture runs. A window that disappears, a screen shrinking below the region, or a server that goes away
/// ends capture: the consumer gets ``VideoCaptureConsumer/captureDidFail(_:)`` on that thread, then no more
/// frames.
///
/// ## Errors
/// ``initCapture()`` throws ``VideoCaptureError/noDisplay(_:)`` (DISPLAY unset or unreachable),
/// ``VideoCaptureError/noSuchWindow(_:)``, ``VideoCaptureError/invalidRegion(x:y:width:height:)`` (empty or not
/// entirely on the screen) or ``VideoCaptureError/noUsableFormat(_:)`` (a visual that is not 24/32-bit RGB).
public final class ScreenCapturer: VideoCapture {
    /// What is captured.
    public let source: ScreenCaptureSource
    /// The display, frame rate and shared-memory choice it was made with.
    public let options: ScreenCaptureOptions

    private enum State {
        /// Not initialized, or released.
        case idle
        /// Display open, source checked; the control thread owns the grabber.
        case ready(ScreenGrabber)
        /// The capture thread owns the grabber.
        case capturing(ScreenGrabber, PeriodicThread)
        /// The capture thread reported an error and ended on its own; `stopCapture` joins it.
        case failed(ScreenGrabber, PeriodicThread)
    }

    private let state = Mutex(State.idle)
    private let consumer = Mutex<(any VideoCaptureConsumer)?>(nil)
    private let hint = Mutex(VideoContentHint.detail)
    private let settings: Mutex<VideoFormat>
    private let tickCount = Atomic(0)

    /// A capturer for `source`; nothing is opened before ``initCapture()``.
    public init(source: ScreenCaptureSource = .screen, options: ScreenCaptureOptions = .init()) {
        self.source = source
        self.options = options
        settings = Mutex(.argb(width: 0, height: 0, fps: options.framesPerSecond))
    }

    deinit { stopCapture() }

    /// Who receives the frames (ARGB, on the thread named by ``ScreenCaptureOptions/threadName``); set it before
    /// ``startCapture()``.
    public var videoCaptureConsumer: (any VideoCaptureConsumer)? {
        get { consumer.withLock { $0 } }
        set { consumer.withLock { $0 = newValue } }
    }

    /// ``VideoContentHint/detail`` unless changed.
    public var videoContentHint: VideoContentHint {
        get { hint.withLock { $0 } }
        set { hint.withLock { $0 = newValue } }
    }

    /// Opens the display and checks the source. Does nothing if already initialized.
    public func initCapture() throws(VideoCaptureError) {
        let initialized = state.withLock { if case .idle = $0 { false } else { true } }
        if initialized { return }
        let grabber = try ScreenGrabber(source: source, options: options)
        settings.withLock { $0 = grabber.format }
        state.withLock { $0 = .ready(grabber) }
    }

    /// Stops capture, detaches and removes the shared-memory segment and closes the display.
    public func releaseCapture() {
        stopCapture()
        let grabber: ScreenGrabber? = state.withLock { s in
            defer { s = .idle }
            if case let .ready(g) = s { return g }
            return nil
        }
        // Dropping the last reference here closes everything. (If the consumer releases from inside
        // consumeFrame, the capture thread still holds one and closes it when its tick returns.)
        withExtendedLifetime(grabber) {}
    }

    /// Starts the capture thread; the first frame is grabbed at once. Does nothing if already started.
    /// - Throws: ``VideoCaptureError/notInitialized`` before ``initCapture()`` or after ``releaseCapture()``.
    public func startCapture() throws(VideoCaptureError) {
        // A thread that ended itself after a failure is joined first (outside the lock: it may still be
        // inside captureDidFail, calling back into this capturer).
        let ended: PeriodicThread? = state.withLock { s in
            guard case let .failed(grabber, thread) = s else { return nil }
            s = .ready(grabber)
            return thread
        }
        ended?.stop()
        try state.withLock { s throws(VideoCaptureError) in
            switch s {
            case .idle: throw .notInitialized
            case .capturing, .failed: return
            case let .ready(grabber): s = .capturing(grabber, startThread(grabber))
            }
        }
    }

    private func startThread(_ grabber: ScreenGrabber) -> PeriodicThread {
        let interval = Duration.nanoseconds(Int64(1e9 / grabber.framesPerSecond))
        return PeriodicThread(name: options.threadName, interval: interval) { [weak self, grabber] in
            guard let self else { return false }
            return self.tick(grabber)
        }
    }

    /// Stops the capture thread and waits for it (when called from a frame callback, only asks it to stop).
    public func stopCapture() {
        let thread: PeriodicThread? = state.withLock { s in
            switch s {
            case let .capturing(grabber, thread), let .failed(grabber, thread):
                s = .ready(grabber)
                return thread
            case .idle, .ready:
                return nil
            }
        }
        thread?.stop()
    }

    /// Whether the capture thread runs; false after ``stopCapture()`` or once a failure was reported.
    public var isCaptureStarted: Bool {
        state.withLock { if case .capturing = $0 { true } else { false } }
    }

    /// ARGB at the size of the area as last seen (a resized window changes it), at the configured rate.
    public func captureSettings() -> VideoFormat { settings.withLock { $0 } }

    /// Whether frames come from MIT-SHM (zero-copy); `false` on the `XGetImage` fallback or before init.
    public var usesSharedMemory: Bool {
        state.withLock { s in
            switch s {
            case .idle: false
            case let .ready(g), let .capturing(g, _), let .failed(g, _): g.usesSharedMemory
            }
        }
    }

    /// The MIT-SHM segment's kernel id while initialized (for tests).
    var sharedMemorySegmentID: Int32? {
        state.withLock { s in
            switch s {
            case .idle: nil
            case let .ready(g), let .capturing(g, _), let .failed(g, _): g.sharedMemorySegmentID
            }
        }
    }

    /// Grab attempts made so far (delivered or not), for tests.
    var ticks: Int { tickCount.load(ordering: .relaxed) }

    /// One period on the capture thread: grab, deliver, or report the failure and end the thread.
    private func tick(_ grabber: ScreenGrabber) -> Bool {
        defer { tickCount.add(1, ordering: .relaxed) }
        let consumer = self.consumer.withLock { $0 }
        do {
            let before = grabber.format
            _ = try grabber.grab { frame in consumer?.consumeFrame(frame) }
            if grabber.format != before {
                let format = grabber.format
                settings.withLock { $0 = format }
            }
            return true
        } catch {
            let stillCapturing = state.withLock { s in
                guard case let .capturing(g, thread) = s, g === grabber else { return false }
                s = .failed(g, thread)
                return true
            }
            if stillCapturing { consumer?.captureDidFail(error) }
            return false
        }
    }
}
