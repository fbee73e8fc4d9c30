import Synchronization
import TokKitCodecs
import TokKitMedia
import TokKitPeer
import TokKitRTP

/// A subscriber's video path: the ``PeerConnection``'s `.video` RTP → VP8 frame assembly → a bounded queue
/// → a named decode thread (`tk-vdec-N`) → VP8 decoder → the subscriber's ``VideoRender``.
///
/// ## Data plane
/// The receive handler (the peer's network thread) feeds each packet to the VP8 frame assembler; a complete
/// frame is copied into one of ``queueCapacity`` preallocated queue slots. The decode thread holds it until its
/// playout time (``VideoPlayoutTiming``: its expected arrival plus a delay that follows how late recent frames
/// completed, so a NACK repair does not freeze the picture), decodes it and hands libvpx's own I420 picture (lent,
/// not copied) to ``renderer``, stamped with its capture time in this process's clock (RTP timestamp mapped from
/// the first frame's arrival). A lost or incomplete frame, a full queue or a decode error
/// makes the pipeline skip everything up to the next keyframe and ask the peer for one
/// (`requestKeyframe()`, at most every 250 ms), again with every frame it drops while it waits (a sender may
/// ignore a request: Chromium answered 6 of 11 in one run). A keyframe finding the queue full replaces the
/// frames waiting there, so the answer to a request is never dropped for want of room. Nothing is allocated
/// per packet or frame in steady state.
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

    /// Complete frames waiting for the decode thread at most (800 ms at 30 fps): the playout delay (up to
    /// 400 ms) holds frames here, and a repaired frame releases the ones that waited behind it at once. On a
    /// loaded machine the decode thread also falls behind for a while (Chromium at 1.7 Mb/s, 640x480): with 3
    /// slots the queue overflowed, and every overflow costs the waiting frames and a keyframe round trip.
    static let queueCapacity = 24

    /// How long (RTP ticks, 90 kHz) an incomplete frame waits for NACK repairs before the pipeline gives it up
    /// and asks for a keyframe: 500 ms. With 5 % loss and a 100 ms round trip, the assembler's 200 ms default gave
    /// up on about one repair in a hundred (the retransmission or a NACK lost as well) and each cost a keyframe
    /// round trip and a freeze of about half a second; the playout delay hides the slower repairs instead.
    static let repairWait: UInt32 = 45_000

    /// The least time between two keyframe requests.
    public static let keyframeRequestInterval: Duration = .milliseconds(250)

    /// The peer whose video this pipeline decodes.
    public let peer: PeerConnection
    /// The decode thread's name (`tk-vdec-N`).
    public let threadName: String

    private struct Control {
        var state: State = .waitingForFirstFrame
        var enabled = true
        var onFirstFrame: (@Sendable (VideoFormat) -> Void)?
        /// Read by the decode thread once per frame.
        var targets: FrameTargets
    }

    /// Where each decoded frame goes. The observer sits in this non-generic struct, not bare in `Control`:
    /// handing a bare closure out of `Mutex.withLock` (generic over its result) reabstracts it, two heap
    /// allocations per read, which made every decoded frame allocate.
    struct FrameTargets: Sendable {
        var renderer: (any VideoRender)?
        var observer: (@Sendable (RenderedFrameInfo) -> Void)?
    }

    private let control: Mutex<Control>
    private let enabledFlag = Atomic<Bool>(true)
    /// The network thread's VP8 reassembly (touched only by the peer's receive handler, under this lock).
    private let assembler: Mutex<Reassembly>

    /// Lets the assembler live in a `Mutex`; only ever used under that lock, hence `@unchecked Sendable`.
    private struct Reassembly: ~Copyable, @unchecked Sendable {
        let assembler: VP8FrameAssembler
    }
    /// Set after a decode error: frames are dropped until the next keyframe.
    private let awaitingKeyframe = Atomic<Bool>(false)
    private let queue = EncodedFrameQueue(capacity: queueCapacity, slotBytes: 64 * 1024)
    private let playout: VideoPlayoutTiming.Configuration
    /// The decode thread's wait for a frame's playout time, cut short by ``close()``.
    private let playoutWait = InterruptibleSleep()
    private let stats = Mutex(VideoReceiveStatistics())
    private let thread = Mutex<MediaThread?>(nil)
    /// Set by ``close()`` before it wakes and joins the thread.
    private let closing = Atomic<Bool>(false)

    /// Installs itself as `peer`'s `.video` receive handler and starts the decode thread. `playout` bounds the
    /// playout delay (the default adapts between 0 and 400 ms).
    public init(peer: PeerConnection, renderer: (any VideoRender)?,
                playout: VideoPlayoutTiming.Configuration = VideoPlayoutTiming.Configuration(),
                onFirstFrame: (@Sendable (VideoFormat) -> Void)? = nil) {
        self.peer = peer
        self.playout = playout
        control = Mutex(Control(onFirstFrame: onFirstFrame, targets: FrameTargets(renderer: renderer)))
        do throws(RTPError) { assembler = Mutex(Reassembly(assembler: try VP8FrameAssembler(.init(maximumWait: Self.repairWait)))) } catch {
            preconditionFailure("the default VP8 assembler configuration is valid: \(error)")
        }
        threadName = PipelineThreadName.next("tk-vdec")
        let t = MediaThread(name: threadName) { [self] _ in self.run() }
        thread.withLock { $0 = t }
        peer.setReceiveHandler(.video) { [weak self] packet in self?.receive(packet) }
    }

    /// The lifecycle state.
    public var state: State { control.withLock { $0.state } }

    /// Whether frames are decoded and rendered (the subscriber's subscribeToVideo).
    public var isEnabled: Bool {
        get { enabledFlag.load(ordering: .acquiring) }
        set {
            // Frames skipped while off break the reference chain: resume at a keyframe.
            if !newValue { awaitingKeyframe.store(true, ordering: .releasing) }
            let was = enabledFlag.exchange(newValue, ordering: .acquiringAndReleasing)
            control.withLock { $0.enabled = newValue }
            if newValue && !was { requestKeyframe(force: true) }
        }
    }

    /// Where decoded frames go (upright I420, borrowed for the call: copy to keep).
    public var renderer: (any VideoRender)? {
        get { control.withLock { $0.targets.renderer } }
        set { control.withLock { $0.targets.renderer = newValue } }
    }

    /// Called on the decode thread for every rendered frame (benchmarks: capture-to-render latency).
    public var frameObserver: (@Sendable (RenderedFrameInfo) -> Void)? {
        get { control.withLock { $0.targets.observer } }
        set { control.withLock { $0.targets.observer = newValue } }
    }

    /// A snapshot of the counters and rates.
    public var statistics: VideoReceiveStatistics { stats.withLock { $0 } }

    func record(_ update: (inout VideoReceiveStatistics) -> Void) { stats.withLock { update(&$0) } }

    /// Removes the receive handler and joins the decode thread (unless called from it). Idempotent.
    public func close() {
        let first = control.withLock { c in
            defer { c.state = .closed; c.targets = FrameTargets(); c.onFirstFrame = nil }
            return c.state != .closed
        }
        guard first else { return }
        peer.setReceiveHandler(.video, nil)
        closing.store(true, ordering: .releasing)
        playoutWait.interrupt()
        queue.wakeUp()
        let t = thread.withLock { t in defer { t = nil }; return t }
        t?.stop()
    }

    // MARK: - Network thread

    private func receive(_ packet: borrowing RTPPacketView) {
        let length = UInt64(packet.payloadLength)
        let (sequenceNumber, timestamp, marker, payload) = (packet.sequenceNumber, packet.timestamp, packet.marker,
                                                            packet.payload)
        let now = MonotonicClock.now()
        let enabled = enabledFlag.load(ordering: .relaxed)
        var needKeyframe = false, received = 0, dropped = 0
        assembler.withLock { state in
            let assembler = state.assembler
            _ = try? assembler.insert(sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker,
                                      payload: payload)
            while let event = assembler.next() {
                switch event {
                case .keyFrameNeeded:
                    needKeyframe = true
                case .frame(let frame):
                    received += 1
                    guard enabled else { dropped += 1; continue }
                    if frame.isKeyFrame {
                        awaitingKeyframe.store(false, ordering: .relaxed)
                    } else if awaitingKeyframe.load(ordering: .relaxed) {
                        // Ask again while waiting (rate-limited): the keyframe answering the last request may
                        // itself have been dropped (full queue) or lost, and the sender sends no other.
                        dropped += 1
                        needKeyframe = true
                        continue
                    }
                    let header = EncodedFrameQueue.Header(rtpTimestamp: frame.timestamp, receivedAt: now,
                                                          isKeyframe: frame.isKeyFrame)
                    var queued = queue.push(length: frame.bytes.count, header: header) { target in
                        target.copyMemory(from: frame.bytes)
                    }
                    if !queued && frame.isKeyFrame {
                        // Nothing waiting before a keyframe is needed after it: it takes their place, and
                        // the picture goes on without another round trip to the sender.
                        dropped += queue.dropWaiting()
                        queued = queue.push(length: frame.bytes.count, header: header) { target in
                            target.copyMemory(from: frame.bytes)
                        }
                    }
                    if !queued {
                        // The decoder fell behind: the reference chain is broken until a keyframe.
                        dropped += 1
                        awaitingKeyframe.store(true, ordering: .relaxed)
                        needKeyframe = true
                    }
                }
            }
        }
        stats.withLock { s in
            s.bytesReceived += length
            s.framesReceived += received
            s.framesDropped += dropped
        }
        if needKeyframe && enabled { requestKeyframe() }
    }

    // MARK: - Keyframe requests

    private let lastKeyframeRequest = Atomic<Int64>(Int64.min / 2)

    /// Asks the peer for a keyframe unless one was asked for within ``keyframeRequestInterval`` (`force`:
    /// regardless).
    func requestKeyframe(force: Bool = false) {
        let now = MonotonicClock.now().nanoseconds
        let last = lastKeyframeRequest.load(ordering: .relaxed)
        if force {
            lastKeyframeRequest.store(now, ordering: .relaxed)
        } else {
            guard now - last >= Self.keyframeRequestInterval.nanoseconds,
                  lastKeyframeRequest.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
            else { return }
        }
        stats.withLock { $0.keyframeRequests += 1 }
        try? peer.requestKeyframe()  // a PLI; fails only before the peer's SSRC is known or after close
    }

    // MARK: - Decode thread

    private func run() {
        var stage = VideoDecodeStage(pipeline: self, playout: playout)
        while !closing.load(ordering: .acquiring) {
            queue.pop { bytes, header in
                guard !closing.load(ordering: .acquiring) else { return }
                stage.decode(bytes, header)
            }
        }
    }

    /// Waits on the decode thread until `time` (``MonotonicClock``); false when the pipeline is closing.
    func sleep(until time: Duration) -> Bool { playoutWait.sleep(until: time) }

    /// A decode error: skip to the next keyframe and ask for one.
    func decodeFailed() {
        awaitingKeyframe.store(true, ordering: .relaxed)
        stats.withLock { s in s.decodeErrors += 1; s.framesDropped += 1 }
        requestKeyframe()
    }

    /// Control state the decode thread reads once per frame; allocates nothing.
    func frameTargets() -> FrameTargets {
        control.withLock { $0.targets }
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
