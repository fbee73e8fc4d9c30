import Synchronization

/// The control half shared by capturers that deliver frames from a ``PeriodicThread`` (TokKitCapture's noise
/// and Y4M file capturers, TokKitTesting's test sources; yours too): the lifecycle created → initialized →
/// started → released, the unretained consumer, the content hint, whether frames are flowing and how many were
/// delivered, with ``VideoCapture``'s start, stop and release semantics in one place. The data-plane half is a
/// ``PacedFrameSource``; a capturer that holds both can take its ``VideoCapture`` members from
/// ``PacedVideoCapture``.
///
/// Control calls come from one control thread at a time (``VideoCapture``'s contract) and are Mutex-guarded.
/// ``stop()`` and ``release(_:)`` may also be called by the consumer on the capture thread, where they only ask
/// the thread to end, and release leaves freeing the source to its deinit.
public final class PacedCapture: Sendable {
    /// Where the capturer is in its lifecycle.
    public enum Stage: Sendable {
        /// Made; ``markInitialized()`` not called yet.
        case created
        /// Ready to start, or stopped.
        case initialized
        /// A thread delivers frames.
        case started
        /// Released: initialize again before starting.
        case released
    }

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
        var hint: VideoContentHint
    }

    /// What the capture thread updates; kept apart from `control` so the thread never holds the control state.
    private final class Flow: Sendable {
        let running = Atomic<Bool>(false)
        let delivered = Atomic<Int>(0)
    }

    private let control: Mutex<Control>
    private let flow = Flow()
    private let threadName: String

    /// A capture control whose thread will be named `threadName`, with `hint` as the initial content hint.
    public init(threadName: String, hint: VideoContentHint) {
        self.threadName = threadName
        control = Mutex(Control(hint: hint))
    }

    /// Who receives the frames, held weakly; read once by ``start(every:source:)``.
    public var consumer: (any VideoCaptureConsumer)? {
        get { control.withLock { $0.consumer } }
        set { control.withLock { $0.consumer = newValue } }
    }

    /// The content hint the capturer reports.
    public var hint: VideoContentHint {
        get { control.withLock { $0.hint } }
        set { control.withLock { $0.hint = newValue } }
    }

    /// Where the capturer is in its lifecycle.
    public var stage: Stage {
        control.withLock { c in
            switch c.phase {
            case .created: .created
            case .initialized: .initialized
            case .started: .started
            case .released: .released
            }
        }
    }

    /// Frames delivered since the capturer was created.
    public var framesDelivered: Int { flow.delivered.load(ordering: .relaxed) }

    /// Whether the capture thread is delivering frames (false once the source ended on its own).
    public var isRunning: Bool { flow.running.load(ordering: .acquiring) }

    /// Records that the capturer's own initialization succeeded; a started capture is left as it is.
    public func markInitialized() {
        control.withLock { c in
            if case .started = c.phase { return }
            c.phase = .initialized
        }
    }

    /// Starts a thread delivering a frame from `source` every `interval`, the first right away. Does nothing when
    /// already started.
    ///
    /// - Throws: ``VideoCaptureError/notInitialized`` before ``markInitialized()`` or after ``release(_:)``.
    public func start(every interval: Duration, source: some PacedFrameSource) throws(VideoCaptureError) {
        try control.withLock { c throws(VideoCaptureError) in
            switch c.phase {
            case .started: return
            case .created, .released: throw .notInitialized
            case .initialized:
                let (flow, consumer) = (flow, c.consumer)
                flow.running.store(true, ordering: .releasing)
                c.phase = .started(
                    PeriodicThread(name: threadName, interval: interval) {
                        switch source.deliverFrame(to: consumer) {
                        case .delivered:
                            flow.delivered.add(1, ordering: .relaxed)
                            return true
                        case .skipped:
                            return true
                        case .ended:
                            flow.running.store(false, ordering: .releasing)
                            return false
                        }
                    })
            }
        }
    }

    /// Stops delivering; when it returns no frame is being delivered (unless called on the capture thread, from
    /// the consumer, where it only asks).
    public func stop() {
        let thread: PeriodicThread? = control.withLock { c in
            guard case let .started(thread) = c.phase else { return nil }
            c.phase = .initialized
            return thread
        }
        thread?.stop()
        flow.running.store(false, ordering: .releasing)
    }

    /// Stops, marks the capture released and frees `source`; on the capture thread the thread still uses the
    /// source, which is then freed with it.
    public func release(_ source: some PacedFrameSource) {
        let onCaptureThread = control.withLock { c in
            if case let .started(thread) = c.phase { return thread.isCurrent }
            return false
        }
        stop()
        control.withLock { $0.phase = .released }
        if !onCaptureThread { source.free() }
    }
}
