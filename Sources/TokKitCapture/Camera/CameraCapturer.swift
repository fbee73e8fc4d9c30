import Synchronization

/// A V4L2 camera as a ``VideoCapture``, as the SDK's default camera capturer: lists cameras, opens one by
/// node or index, negotiates a format (see ``CameraNegotiation``), streams from memory-mapped buffers on its
/// own named thread and delivers I420 or NV12 frames converted by libyuv into pooled memory, each stamped
/// with the time the driver gave its buffer (`CLOCK_MONOTONIC`, the clock of ``MonotonicClock``).
///
/// ```swift
/// let camera = CameraCapturer(camera: .index(0), preferences: .init(width: 1280, height: 720))
/// camera.videoCaptureConsumer = myConsumer
/// try camera.initCapture()      // opens, negotiates, maps buffers
/// try camera.startCapture()     // frames flow to myConsumer on the "camera video0" thread
/// try camera.switchCamera(to: .index(1))
/// camera.releaseCapture()
/// ```
///
/// ## States
/// `idle` → ``initCapture()`` → `ready` (device held, buffers mapped) → ``startCapture()`` → `capturing`
/// → ``stopCapture()`` → `ready` → ``releaseCapture()`` → `idle`. A device failing mid-stream (unplugged)
/// moves it to `failed`: the capture thread releases the device (descriptor and mappings), calls
/// ``VideoCaptureConsumer/captureDidFail(_:)`` and ends; ``startCapture()`` then throws the error and
/// ``initCapture()`` may try again (once the camera is back).
///
/// ## Threading
/// Control calls (init, start, stop, release, ``switchCamera(to:)``) come from one control thread at a
/// time, as ``VideoCapture`` requires; they are guarded by a lock and never wait on the consumer. Frames are
/// delivered on the capture thread only, one at a time; ``stopCapture()`` wakes it at once (`STREAMOFF`)
/// and joins it. The consumer and content hint may be set from any thread.
public final class CameraCapturer: VideoCapture {
    /// The system calls it uses (``LibV4L2Driver`` unless a test passes a simulated one).
    public let driver: any V4L2Driver
    /// What it asks the camera for.
    public let preferences: CameraPreferences

    /// A started capture thread and the loop it runs.
    struct Run {
        let loop: CameraCaptureLoop
        let thread: MediaThread
    }

    enum State {
        /// Nothing open.
        case idle
        /// Device open, format set, buffers mapped; not streaming.
        case ready(CameraSession)
        /// Streaming on `run`'s thread.
        case capturing(CameraSession, Run)
        /// The device failed mid-stream; the capture thread released it (and may still be finishing).
        case failed(VideoCaptureError, MediaThread)
    }

    private struct Control {
        var state: State = .idle
        var selection: CameraSelector
        /// A run stopped from inside its own consumer callback: its thread was asked to end but could not be
        /// joined, and may still be returning from that callback.
        var unjoined: Run?
    }

    private let control: Mutex<Control>
    private let output = CameraOutput()
    private let hint = Mutex<VideoContentHint>(.motion)

    /// A capturer for `camera` (default: the first one listed). Nothing is opened before ``initCapture()``.
    public init(
        camera: CameraSelector = .index(0), preferences: CameraPreferences = CameraPreferences(),
        driver: any V4L2Driver = LibV4L2Driver()
    ) {
        self.driver = driver
        self.preferences = preferences
        control = Mutex(Control(selection: camera))
    }

    deinit {
        releaseCapture()
    }

    /// Every video capture device `driver` has, with its formats, sizes and frame intervals, in node order.
    /// An empty list means no camera (not an error). Opens each device briefly; call it from a control thread.
    public static func availableCameras(driver: any V4L2Driver = LibV4L2Driver()) -> [CameraDevice] {
        CameraDiscovery.cameras(driver: driver)
    }

    // MARK: VideoCapture

    /// Who receives the frames, on the capture thread; may be set from any thread.
    public var videoCaptureConsumer: (any VideoCaptureConsumer)? {
        get { output.consumer.withLock { $0 } }
        set { output.consumer.withLock { $0 = newValue } }
    }

    /// The hint handed on with the frames (the encoder tunes for it); may be set from any thread.
    public var videoContentHint: VideoContentHint {
        get { hint.withLock { $0 } }
        set { hint.withLock { $0 = newValue } }
    }

    /// Opens the selected camera, negotiates its format and maps its buffers. Does nothing if already done.
    /// - Throws: ``VideoCaptureError/noSuchDevice(_:)``, ``VideoCaptureError/deviceBusy(_:)``,
    ///   ``VideoCaptureError/permissionDenied(_:)``, ``VideoCaptureError/noUsableFormat(_:)``, or
    ///   ``VideoCaptureError/systemError(operation:errno:)``.
    public func initCapture() throws(VideoCaptureError) {
        let (state, selection) = control.withLock { ($0.state, $0.selection) }
        switch state {
        case .ready, .capturing: return
        case let .failed(_, thread): thread.stop()
        case .idle: break
        }
        let session = try CameraSession.open(path: try selection.resolve(driver: driver), preferences: preferences, driver: driver)
        control.withLock { $0.state = .ready(session) }
    }

    /// Starts streaming on a new capture thread. Does nothing if already capturing.
    /// - Throws: ``VideoCaptureError/notInitialized`` before ``initCapture()``, the failure that stopped it
    ///   after one, or the device's error (unplugged, busy).
    public func startCapture() throws(VideoCaptureError) {
        let state = control.withLock { $0.state }
        switch state {
        case .idle: throw .notInitialized
        case let .failed(error, _): throw error
        case .capturing: return
        case let .ready(session): try start(session)
        }
    }

    /// Stops streaming. When it returns, no frame is being delivered and none will follow (unless called from
    /// inside ``VideoCaptureConsumer/consumeFrame(_:)``: then the frame being consumed is the last).
    public func stopCapture() {
        let stopped: (CameraSession, Run)? = control.withLock { c in
            switch c.state {
            case let .capturing(session, run):
                c.state = .ready(session)
                if run.thread.isCurrent { c.unjoined = run }
                return (session, run)
            default:
                return nil
            }
        }
        if let (session, run) = stopped {
            run.loop.requestStop()
            run.thread.stop()  // joins, unless this is the capture thread itself
            if !run.thread.isCurrent { session.streamOff() }
        } else if case let .failed(_, thread) = control.withLock({ $0.state }) {
            thread.stop()
        }
    }

    /// Stops streaming if needed and releases the camera: buffers unmapped and freed, descriptor closed.
    /// Called from inside a consumer callback, the capture thread releases it as soon as the callback returns.
    public func releaseCapture() {
        stopCapture()
        let (state, unjoined): (State, Run?) = control.withLock { c in
            defer { c.state = .idle }
            return (c.state, c.unjoined)
        }
        switch state {
        case let .ready(session):
            if let unjoined, unjoined.loop.session === session, unjoined.thread.isCurrent {
                unjoined.loop.requestReleaseOnExit()
            } else {
                session.release()
            }
        case let .failed(_, thread):
            thread.stop()
        case .idle, .capturing:
            break
        }
    }

    /// Whether the camera is streaming (between ``startCapture()`` and ``stopCapture()``, and not failed).
    public var isCaptureStarted: Bool {
        control.withLock { if case .capturing = $0.state { true } else { false } }
    }

    /// The format frames have (after ``initCapture()``), or the preferred one before.
    public func captureSettings() -> VideoFormat {
        control.withLock { c in
            switch c.state {
            case let .ready(session), let .capturing(session, _): return session.outputFormat
            case .idle, .failed:
                return VideoFormat(
                    pixelFormat: preferences.outputFormat.pixelFormat, width: preferences.width, height: preferences.height,
                    estimatedFramesPerSecond: preferences.framesPerSecond)
            }
        }
    }

    // MARK: Camera

    /// The camera in use (after ``initCapture()``), as it was described when opened.
    public var currentCamera: CameraDevice? {
        control.withLock { c in
            switch c.state {
            case let .ready(session), let .capturing(session, _): session.device
            case .idle, .failed: nil
            }
        }
    }

    /// Which camera is (or will be) opened.
    public var selection: CameraSelector { control.withLock { $0.selection } }

    /// Frames delivered to the consumer so far.
    public var framesDelivered: Int { output.delivered.load(ordering: .relaxed) }
    /// Frames the camera filled that were not delivered: superseded by a newer one, flagged bad by the
    /// driver, short, undecodable, or finding the pool full.
    public var framesDropped: Int { output.dropped.load(ordering: .relaxed) }

    /// Swaps to another camera, as the SDK's camera swap: while capturing, the consumer keeps receiving
    /// frames, from the new camera (possibly of another size: see ``captureSettings()``). The new camera is
    /// opened before the old one stops, so on failure nothing changes. Selecting the camera in use does
    /// nothing. Before ``initCapture()`` it only changes the selection. A control call: not from inside a
    /// consumer callback.
    /// - Throws: what ``initCapture()`` throws for the new camera; if it opens but then fails to stream, the
    ///   error of ``startCapture()`` (the capturer is then initialized with the new camera, not capturing).
    public func switchCamera(to camera: CameraSelector) throws(VideoCaptureError) {
        let state = control.withLock { $0.state }
        let current: CameraSession? = switch state {
        case let .ready(s), let .capturing(s, _): s
        case .idle, .failed: nil
        }
        guard let current else {
            control.withLock { $0.selection = camera }
            return
        }
        let path = try camera.resolve(driver: driver)
        guard path != current.path else {
            control.withLock { $0.selection = camera }
            return
        }
        let next = try CameraSession.open(path: path, preferences: preferences, driver: driver)
        let wasCapturing = isCaptureStarted
        stopCapture()
        current.release()
        control.withLock {
            $0.selection = camera
            $0.state = .ready(next)
        }
        if wasCapturing { try start(next) }
    }

    // MARK: Private

    private func start(_ session: CameraSession) throws(VideoCaptureError) {
        // A run stopped from inside its callback must be gone before another run uses the session.
        if let old = control.withLock({ c in defer { c.unjoined = nil }; return c.unjoined }), !old.thread.isCurrent {
            old.thread.stop()
        }
        try session.startStreaming()
        let loop = CameraCaptureLoop(session: session, output: output)
        let node = session.path.split(separator: "/").last.map(String.init) ?? "?"
        // The state is set under the lock the thread needs to report a failure, so it cannot report too early.
        control.withLock { c in
            let thread = MediaThread(name: "camera \(node)") { [weak self] _ in
                if let error = loop.run() {
                    self?.captureFailed(loop, error)
                } else if loop.shouldReleaseOnExit {
                    session.release()
                }
            }
            c.state = .capturing(session, Run(loop: loop, thread: thread))
        }
    }

    /// On the capture thread: the device failed. Unless a stop raced it, release the device, record the
    /// failure and tell the consumer.
    private func captureFailed(_ loop: CameraCaptureLoop, _ error: VideoCaptureError) {
        let report: Bool = control.withLock { c in
            guard case let .capturing(_, run) = c.state, run.loop === loop else { return false }
            c.state = .failed(error, run.thread)
            return true
        }
        if report || loop.shouldReleaseOnExit { loop.session.release() }
        if report { videoCaptureConsumer?.captureDidFail(error) }
    }
}
