import Synchronization
import TokKitMedia
import TokKitPeer
import TokKitRTP

/// A subscriber's video path: the ``PeerConnection``'s `.video` RTP → VP8 frame assembly → a bounded queue
/// → a named decode thread (`tk-vdec-N`) → VP8 decoder → the subscriber's ``VideoRender``.
///
/// ## Data plane
/// The receive handler (the peer's network thread) feeds each packet to the VP8 frame assembler; a complete
/// frame is copied into one of three preallocated queue slots. The decode thread decodes it into a pooled
/// I420 frame, stamps it with its capture time in this process's clock (RTP timestamp mapped from the first
/// frame's arrival) and hands it to ``renderer``. A lost or incomplete frame, a full queue or a decode error
/// makes the pipeline skip everything up to the next keyframe and ask the peer for one
/// (`requestKeyframe()`, at most every 250 ms). Nothing is allocated per packet or frame in steady state.
///
/// ## Control
/// ``isEnabled`` false (subscribeToVideo = false) stops decoding and rendering; turning it on again waits for
/// a keyframe and asks for one. ``onFirstFrame`` is called once, on the decode thread, after the first frame
/// was rendered (the subscriber's "video connected"). ``frameObserver`` sees every rendered frame (latency
/// benchmarks). ``close()`` removes the receive handler and joins the decode thread; the thread keeps the
/// pipeline alive until then, so every pipeline must be closed.
///
/// Thread-safe: control state is one lock-guarded value with an explicit ``State``.
public final class VideoReceivePipeline: Sendable {
    /// The lifecycle of a pipeline.
    public enum State: Sendable, Hashable {
        /// Receiving; no frame rendered yet.
        case waitingForFirstFrame
        /// At least one frame was rendered.
        case rendering
        /// ``close()`` was called. Terminal.
        case closed
    }

    /// The least time between two keyframe requests.
    public static let keyframeRequestInterval: Duration = .milliseconds(250)

    /// The peer whose video this pipeline decodes.
    public let peer: PeerConnection
    /// The decode thread's name (`tk-vdec-N`).
    public let threadName: String

    private struct Control {
        var state: State = .waitingForFirstFrame
        var enabled = true
        var renderer: (any VideoRender)?
        var onFirstFrame: (@Sendable (VideoFormat) -> Void)?
        var frameObserver: (@Sendable (RenderedFrameInfo) -> Void)?
    }

    private let control: Mutex<Control>
    private let enabledFlag = Atomic<Bool>(true)
    let queue = EncodedFrameQueue()
    let stats = Mutex(VideoReceiveStatistics())
    private let thread = Mutex<MediaThread?>(nil)

    /// Installs itself as `peer`'s `.video` receive handler and starts the decode thread.
    public init(peer: PeerConnection, renderer: (any VideoRender)?,
                onFirstFrame: (@Sendable (VideoFormat) -> Void)? = nil) {
        self.peer = peer
        control = Mutex(Control(renderer: renderer, onFirstFrame: onFirstFrame))
        threadName = PipelineThreadName.next("tk-vdec")
        let t = MediaThread(name: threadName) { [self] me in self.run(me) }
        thread.withLock { $0 = t }
        peer.setReceiveHandler(.video) { [weak self] packet in self?.receive(packet) }
    }

    /// The lifecycle state.
    public var state: State { control.withLock { $0.state } }

    /// Whether frames are decoded and rendered (the subscriber's subscribeToVideo).
    public var isEnabled: Bool {
        get { enabledFlag.load(ordering: .acquiring) }
        set {
            let was = enabledFlag.exchange(newValue, ordering: .acquiringAndReleasing)
            control.withLock { $0.enabled = newValue }
            if newValue && !was { requestKeyframe() }
        }
    }

    /// Where decoded frames go (upright I420, pooled; copy to keep).
    public var renderer: (any VideoRender)? {
        get { control.withLock { $0.renderer } }
        set { control.withLock { $0.renderer = newValue } }
    }

    /// Called on the decode thread for every rendered frame (benchmarks: capture-to-render latency).
    public var frameObserver: (@Sendable (RenderedFrameInfo) -> Void)? {
        get { control.withLock { $0.frameObserver } }
        set { control.withLock { $0.frameObserver = newValue } }
    }

    /// A snapshot of the counters and rates.
    public var statistics: VideoReceiveStatistics { stats.withLock { $0 } }

    /// Removes the receive handler and joins the decode thread (unless called from it). Idempotent.
    public func close() {
        let first = control.withLock { c in
            defer { c.state = .closed; c.renderer = nil; c.onFirstFrame = nil; c.frameObserver = nil }
            return c.state != .closed
        }
        guard first else { return }
        peer.setReceiveHandler(.video, nil)
        let t = thread.withLock { t in defer { t = nil }; return t }
        t?.stop()
        queue.wakeUp()
    }

    // MARK: - Network thread

    private func receive(_ packet: borrowing RTPPacketView) {
        // VP8 frame assembly: needs TokKitRTP's VP8FrameAssembler (merged next).
        let length = UInt64(packet.payloadLength)
        stats.withLock { $0.bytesReceived += length }
    }

    // MARK: - Keyframe requests

    private let lastKeyframeRequest = Atomic<Int64>(Int64.min / 2)

    /// Asks the peer for a keyframe unless one was asked for within ``keyframeRequestInterval``.
    func requestKeyframe() {
        let now = MonotonicClock.now().nanoseconds
        let last = lastKeyframeRequest.load(ordering: .relaxed)
        guard now - last >= Self.keyframeRequestInterval.nanoseconds,
              lastKeyframeRequest.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
        else { return }
        stats.withLock { $0.keyframeRequests += 1 }
        // peer.requestKeyframe(): TokKitPeer feedback (merged next).
    }

    // MARK: - Decode thread

    private func run(_ me: MediaThread) {
        while !me.isStopping {
            queue.pop { bytes, header in
                _ = (bytes, header)
            }
        }
    }

    /// Control state the decode thread reads once per frame.
    func frameTargets() -> (renderer: (any VideoRender)?, observer: (@Sendable (RenderedFrameInfo) -> Void)?) {
        control.withLock { ($0.renderer, $0.frameObserver) }
    }

    /// Marks the first rendered frame; returns the callback to call (once).
    func firstFrameRendered() -> (@Sendable (VideoFormat) -> Void)? {
        control.withLock { c in
            guard c.state == .waitingForFirstFrame else { return nil }
            c.state = .rendering
            defer { c.onFirstFrame = nil }
            return c.onFirstFrame
        }
    }
}
