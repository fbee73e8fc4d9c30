import Synchronization
import TokKitMedia
import TokKitPeer

/// A publisher's video path: capturer → I420 at the encode size → local preview → VP8 (encoded **once**) →
/// RTP packets → every attached ``PeerConnection`` (one per subscriber).
///
/// ## Data plane
/// The pipeline is the capturer's ``VideoCaptureConsumer``: ``consumeFrame(_:)`` (capturer thread) keeps a
/// pooled frame as is, or copies a borrowed one, into a one-slot mailbox (newest wins; a replaced frame is
/// counted as dropped). A named encode thread (`tk-venc-N`) converts and scales it to I420 at the encode size
/// with ``VideoConverter`` (pooled memory), rotates it upright, renders it to ``previewRenderer``, encodes it
/// with VP8 and packetizes it once into a bounded ``PacketSendQueue``; a named sending thread (`tk-vsend-N`) takes
/// each packet out at the pacer's rate (``PacketPacer``, 2.5 × the video's share of the path's estimate) and sends
/// it with `sendRTP(.video, …)` to every attached peer that is connected. Pacing never holds the encode thread:
/// when the queue is behind by more than ``SendBacklogGate/maximumBacklog``, frames are skipped instead (WebRTC's
/// frame dropper). RTP timestamps come from the frame's capture time through ``clockMapping`` (90 kHz). Nothing is
/// allocated per frame or packet in steady state.
///
/// ## Control
/// ``attach(_:)`` / ``detach(_:)`` at any time, from any thread. A peer that becomes connected, a PLI or FIR
/// from any peer, ``requestKeyframe()`` and re-enabling all make the next frame a keyframe. ``isEnabled``
/// false (publishVideo = false) stops encoding and sending; the preview keeps running. Swapping the capturer
/// (camera swap) needs nothing: point the new capturer's consumer at the same pipeline. ``close()`` joins the
/// encode thread; the thread keeps the pipeline alive until then, so every pipeline must be closed.
///
/// Thread-safe: control state is one lock-guarded value with an explicit ``State``.
public final class VideoSendPipeline: VideoCaptureConsumer {
    /// The lifecycle of a pipeline.
    public enum State: Sendable, Hashable {
        /// The encode thread is running.
        case running
        /// ``close()`` was called. Terminal.
        case closed
    }

    /// The 90 kHz mapping from capture time to RTP timestamp used for every packet.
    public let clockMapping: RTPClockMapping
    /// The encode thread's name (`tk-venc-N`).
    public let threadName: String
    /// The sending thread's name (`tk-vsend-N`).
    public let sendThreadName: String

    private struct Attachment {
        let peer: PeerConnection
        /// The peer's receiver estimate (REMB).
        var estimatedBitrate: Int?
        /// Our send-side estimate towards the peer, from its transport-wide feedback.
        var sendSideEstimate: Int?
        /// What this peer allows: the lower of the two estimates it has.
        var cap: Int? {
            switch (estimatedBitrate, sendSideEstimate) {
            case let (remb?, sendSide?): min(remb, sendSide)
            case let (remb, sendSide): remb ?? sendSide
            }
        }
    }

    private struct Control {
        var state: State = .running
        var settings: VideoEncodeSettings
        /// Bumped on every settings change, so the encode thread notices with one comparison.
        var settingsGeneration = 0
        /// Each attached peer's bitrate estimates (the peers themselves are in ``fanOut``).
        var attachments: [Attachment] = []
        var enabled = true
        var preview: (any VideoRender)?
    }

    private let control: Mutex<Control>
    private let keyframeWanted = Atomic<Bool>(true)
    private let fanOut = PeerFanOut()
    /// The lowest estimate (REMB or send-side) over the peers, and whether the encode thread has seen it.
    private let bitrateCap = Mutex<(value: Int?, changed: Bool)>((nil, false))
    private let stats = Mutex(VideoSendStatistics())
    private let mailbox = FrameMailbox()
    private let copyPool = VideoFramePool(capacity: 3)
    private let thread = Mutex<MediaThread?>(nil)
    /// Packets between the encode thread and the sending thread.
    let sendQueue: PacketSendQueue
    private let sendThread = Mutex<MediaThread?>(nil)
    /// Set by ``close()`` before it wakes and joins the thread.
    private let closing = Atomic<Bool>(false)
    /// The sending thread's wait between paced packets, cut short by ``close()``.
    private let pacingWait = InterruptibleSleep()

    /// Starts the encode thread. Throws ``StreamingError/invalidSettings(_:)`` for settings out of range.
    public convenience init(settings: VideoEncodeSettings = VideoEncodeSettings(),
                            previewRenderer: (any VideoRender)? = nil,
                            clockMapping: RTPClockMapping = RTPClockMapping(clockRate: 90_000)) throws(StreamingError) {
        try self.init(settings: settings, previewRenderer: previewRenderer, clockMapping: clockMapping,
                      sendQueueCapacity: PacketSendQueue.defaultCapacity)
    }

    /// As the public initialiser, with a send queue of `sendQueueCapacity` packets (at least 1; tests fill a small
    /// one).
    init(settings: VideoEncodeSettings, previewRenderer: (any VideoRender)?, clockMapping: RTPClockMapping,
         sendQueueCapacity: Int) throws(StreamingError) {
        try settings.validate()
        sendQueue = PacketSendQueue(capacity: sendQueueCapacity)
        self.clockMapping = clockMapping
        control = Mutex(Control(settings: settings, preview: previewRenderer))
        threadName = PipelineThreadName.next("tk-venc")
        sendThreadName = "tk-vsend" + threadName.dropFirst("tk-venc".count)  // the same number
        let t = MediaThread(name: threadName) { [self] _ in self.run() }
        thread.withLock { $0 = t }
        let sender = MediaThread(name: sendThreadName) { [self] _ in self.runSender() }
        sendThread.withLock { $0 = sender }
    }

    // MARK: - Control

    /// The lifecycle state.
    public var state: State { control.withLock { $0.state } }

    /// The encode settings in use.
    public var settings: VideoEncodeSettings { control.withLock { $0.settings } }

    /// Changes the settings; the encode thread applies them before the next frame (a new size or content hint
    /// restarts the encoder with a keyframe). Throws ``StreamingError/invalidSettings(_:)``.
    public func update(_ settings: VideoEncodeSettings) throws(StreamingError) {
        try settings.validate()
        control.withLock { c in
            c.settings = settings
            c.settingsGeneration += 1
        }
    }

    /// Changes some of the settings in one step: `change` gets the current settings and edits them under the
    /// pipeline's lock, so concurrent callers that each change a different field (size, content hint, simulcast
    /// layers) cannot undo one another. Nothing changes when the result is invalid; throws
    /// ``StreamingError/invalidSettings(_:)`` then. `change` must be quick and must not call back into the pipeline.
    public func modifySettings(_ change: (inout VideoEncodeSettings) -> Void) throws(StreamingError) {
        let result: Result<Void, StreamingError> = control.withLock { c in
            var settings = c.settings
            change(&settings)
            do throws(StreamingError) {
                try settings.validate()
            } catch {
                return .failure(error)
            }
            c.settings = settings
            c.settingsGeneration += 1
            return .success(())
        }
        try result.get()
    }

    /// Whether frames are encoded and sent (the publisher's publishVideo). Turning it on forces a keyframe.
    public var isEnabled: Bool {
        get { control.withLock { $0.enabled } }
        set {
            let turnedOn = control.withLock { c in
                defer { c.enabled = newValue }
                return newValue && !c.enabled
            }
            if turnedOn { requestKeyframe() }
        }
    }

    /// Where the encode thread shows each frame, upright I420 at the encode size (nil: no preview).
    public var previewRenderer: (any VideoRender)? {
        get { control.withLock { $0.preview } }
        set { control.withLock { $0.preview = newValue } }
    }

    /// Sends to `peer` from the next frame on (a keyframe once it is connected). Its video feedback (PLI, FIR,
    /// REMB, the send-side estimate from its transport-wide feedback) is routed to this pipeline. Attaching a peer
    /// twice does nothing. Throws ``StreamingError/closed``.
    public func attach(_ peer: PeerConnection) throws(StreamingError) {
        guard try fanOut.attach(peer) else { return }
        peer.setSendTimestampOrigin(.video, rtpTimestampAtZero: clockMapping.offset)
        control.withLock { $0.attachments.append(Attachment(peer: peer)) }
        installFeedback(on: peer)
    }

    /// Stops sending to `peer` and releases its feedback handler; packets already queued for it are not sent to it
    /// (the sending thread leaves it out from its next packet on). Unknown peers are ignored.
    public func detach(_ peer: PeerConnection) {
        // (found, whether it had a bitrate estimate, the lowest estimate of the peers left)
        let removed: (found: Bool, hadEstimate: Bool, cap: Int?) = control.withLock { c in
            guard let i = c.attachments.firstIndex(where: { $0.peer === peer }) else { return (false, false, nil) }
            let hadEstimate = c.attachments[i].cap != nil
            c.attachments.remove(at: i)
            return (true, hadEstimate, c.attachments.compactMap(\.cap).min())
        }
        _ = fanOut.detach(peer)
        guard removed.found else { return }
        removeFeedback(from: peer)
        if removed.hadEstimate { bitrateCap.withLock { $0 = (removed.cap, true) } }
    }

    /// The peers attached now.
    public var peers: [PeerConnection] { fanOut.peers }

    /// Makes the next encoded frame a keyframe.
    public func requestKeyframe() {
        keyframeWanted.store(true, ordering: .releasing)
        stats.withLock { $0.keyframeRequests += 1 }
    }

    /// The least time between two keyframes made for peers' PLI or FIR (libwebrtc's `EncoderRtcpFeedback`
    /// minimum keyframe send interval): on a congested path every receiver asks again every few hundred ms while
    /// the keyframe answering its last request is still on its way, and each new keyframe congests it further.
    public static let peerKeyframeInterval: Duration = .milliseconds(300)
    private let lastPeerKeyframeRequest = Atomic<Int64>(Int64.min / 2)

    /// A peer's PLI or FIR: a keyframe unless one was made for a request within ``peerKeyframeInterval``.
    func peerRequestedKeyframe() {
        guard takePeerKeyframeSlot() else {
            // Simulcast: the media router asks once when a subscriber switches layers and waits for a keyframe on
            // the new one; dropping that request left the switch waiting forever. Keep it for the interval's end.
            if simulcasting.load(ordering: .relaxed) { deferredPeerKeyframe.store(true, ordering: .relaxed) }
            stats.withLock { $0.keyframeRequestsIgnored += 1 }
            return
        }
        deferredPeerKeyframe.store(false, ordering: .relaxed)
        requestKeyframe()
    }

    /// A peer's repairs refused on an overloaded path (``RTCPFeedback/repairsDeclined``): a keyframe within the same
    /// limit as a peer's request, counted apart (the peer did not ask). Never deferred: the responder reports again
    /// if the repairs are still refused once the interval has passed.
    func repairsDeclined() {
        guard takePeerKeyframeSlot() else {
            stats.withLock { $0.declinedRepairReportsIgnored += 1 }
            return
        }
        keyframeWanted.store(true, ordering: .releasing)  // answers a deferred peer request too
        declinedRepairsAt.store(MonotonicClock.now().nanoseconds, ordering: .relaxed)
        stats.withLock { $0.keyframesForDeclinedRepairs += 1 }
    }

    /// How long after repairs were declined the frames encoded (the key frame made for it first) are paced at
    /// ``PacketPacer/drainingFactor`` times the estimate instead of ``PacketPacer/pacingFactor``. The repairs are
    /// declined once the estimator has cut for a queue that overflowed: a bottleneck's queue, built before any
    /// feedback told of it, still drains. A key frame paced at 2.5 × the estimate into it filled it again, and a
    /// packet of the delta frame right after it was lost; its repair took a round trip through full queues both
    /// ways (~250 ms) and froze the picture after the send rate had settled (network-bench's bottleneck row, four
    /// traced runs of four, Docs/Networking.md). At the estimate, which the cut took under what the path delivers,
    /// the queue drains under the key frame, and the frames after it wait in the send queue instead.
    public static let drainSpan: Duration = .milliseconds(500)
    private let declinedRepairsAt = Atomic<Int64>(Int64.min / 2)

    /// The pacing factor for a frame encoded at `now` (``drainSpan``).
    func pacingFactor(at now: Duration) -> Double {
        now.nanoseconds - declinedRepairsAt.load(ordering: .relaxed) < Self.drainSpan.nanoseconds
            ? PacketPacer.drainingFactor : PacketPacer.pacingFactor
    }

    /// Whether ``peerKeyframeInterval`` has passed since the last keyframe made for a peer; if so, this call takes it.
    private func takePeerKeyframeSlot() -> Bool {
        let now = MonotonicClock.now().nanoseconds
        let last = lastPeerKeyframeRequest.load(ordering: .relaxed)
        return now - last >= Self.peerKeyframeInterval.nanoseconds
            && lastPeerKeyframeRequest.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
    }

    /// Whether the encode thread sends more than one simulcast layer (set by it, ``setSimulcasting(_:)``).
    private let simulcasting = Atomic<Bool>(false)
    func setSimulcasting(_ on: Bool) { simulcasting.store(on, ordering: .relaxed) }
    /// Simulcast: a peer's request fell within ``peerKeyframeInterval`` of the last one answered; the encode thread
    /// makes a keyframe once the interval has passed (at most one per interval, as for answered requests).
    private let deferredPeerKeyframe = Atomic<Bool>(false)

    /// Caps the bitrate by `peer`'s receiver estimate (REMB); the encoder follows the lowest estimate of all
    /// peers (REMB or send-side), never above ``VideoEncodeSettings/bitrate``.
    public func receiverEstimatedBitrate(_ bitsPerSecond: Int, from peer: PeerConnection) {
        updateCap(from: peer) { $0.estimatedBitrate = bitsPerSecond }
    }

    /// Caps the bitrate by the video's share of our send-side estimate towards `peer` (from its transport-wide
    /// feedback, less what the audio and the retransmissions take: ``RTCPFeedback/sendSideEstimatedBitrate(_:)``);
    /// combined with REMB as above: per peer the lower of the two, over peers the lowest, never above
    /// ``VideoEncodeSettings/bitrate``.
    public func sendSideEstimatedBitrate(_ bitsPerSecond: Int, from peer: PeerConnection) {
        updateCap(from: peer) { $0.sendSideEstimate = bitsPerSecond }
    }

    private func updateCap(from peer: PeerConnection, _ change: (inout Attachment) -> Void) {
        let cap: Int?? = control.withLock { c in
            guard let i = c.attachments.firstIndex(where: { $0.peer === peer }) else { return nil }
            change(&c.attachments[i])
            // The lowest cap over peers, without building an array (this runs on the network thread).
            var lowest: Int?
            for attachment in c.attachments {
                if let cap = attachment.cap, cap < (lowest ?? .max) { lowest = cap }
            }
            return lowest
        }
        guard let cap else { return }
        bitrateCap.withLock { $0 = (cap, true) }
    }

    /// A snapshot of the counters and rates.
    public var statistics: VideoSendStatistics {
        var s = stats.withLock { $0 }
        s.peers = fanOut.count
        return s
    }

    /// Stops the encode thread (joined unless called from it), detaches every peer. Idempotent.
    public func close() {
        let running: Bool = control.withLock { c in
            guard c.state == .running else { return false }
            c.state = .closed
            c.attachments = []
            c.preview = nil
            return true
        }
        guard running, let peers = fanOut.close() else { return }
        for peer in peers { removeFeedback(from: peer) }
        closing.store(true, ordering: .releasing)
        pacingWait.interrupt()
        mailbox.wakeUp()
        sendQueue.wakeUp()
        let t = thread.withLock { t in defer { t = nil }; return t }
        t?.stop()
        let sender = sendThread.withLock { t in defer { t = nil }; return t }
        sender?.stop()
        mailbox.clear()
        if sender?.isCurrent != true { sendQueue.removeAll() }
    }

    /// Waits on the sending thread until `time` (``MonotonicClock``) to send the next paced packet; false when
    /// the pipeline is closing.
    func pace(until time: Duration) -> Bool { pacingWait.sleep(until: time) }

    // MARK: - VideoCaptureConsumer (capturer thread)

    public func consumeFrame(_ frame: VideoFrame) {
        guard !closing.load(ordering: .relaxed) else { return }  // a capturer still running after close()
        stats.withLock { $0.framesCaptured += 1 }
        let kept: VideoFrame
        if frame.isBorrowed {
            do { kept = try frame.copy(using: copyPool) } catch {
                stats.withLock { $0.framesDropped += 1 }
                return
            }
        } else {
            kept = frame
        }
        if mailbox.put(kept) { stats.withLock { $0.framesDropped += 1 } }
    }

    // MARK: - Feedback (network thread)

    private func installFeedback(on peer: PeerConnection) {
        peer.setFeedbackHandler(.video) { [weak self, weak peer] feedback in
            guard let self else { return }
            switch feedback {
            case .pictureLoss, .fullIntraRequest:
                self.peerRequestedKeyframe()
            case .repairsDeclined:
                self.repairsDeclined()
            case .receiverEstimatedMaximumBitrate(let bps):
                guard let peer else { return }
                self.receiverEstimatedBitrate(Int(clamping: bps), from: peer)
            case .sendSideEstimatedBitrate(let bps):
                guard let peer else { return }
                self.sendSideEstimatedBitrate(Int(clamping: bps), from: peer)
            }
        }
    }

    private func removeFeedback(from peer: PeerConnection) {
        peer.setFeedbackHandler(.video, nil)
    }

    // MARK: - Encode thread

    private func run() {
        var stage = VideoEncodeStage(pipeline: self)
        while !closing.load(ordering: .acquiring) {
            guard let frame = mailbox.wait() else { continue }
            if closing.load(ordering: .acquiring) { break }
            stage.process(frame)
        }
    }

    // MARK: - Sending thread

    private func runSender() {
        var stage = VideoPacketSendStage(pipeline: self)
        var open = true
        while open && !closing.load(ordering: .acquiring) {
            sendQueue.pop { payload, header in
                if !stage.send(payload, header) { open = false }
            }
        }
        stage.flush()
    }

    /// One frame's worth of control state, read by the encode thread with one lock.
    struct FrameControl {
        var settings: VideoEncodeSettings
        var settingsGeneration: Int
        var enabled: Bool
        var preview: (any VideoRender)?
        var peers: [PeerConnection]
        var newlyLive: Bool
        /// ``PeerFanOut/detachments`` read before `peers`.
        var detachments: Int
    }

    /// Promotes attached peers that became connected, and returns what the encode thread needs for one frame.
    func frameControl() -> FrameControl {
        let detachments = fanOut.detachments  // first: a peer detached after this is left out at send time
        let live = fanOut.live()
        return control.withLock { c in
            FrameControl(settings: c.settings, settingsGeneration: c.settingsGeneration, enabled: c.enabled,
                         preview: c.preview, peers: live.peers, newlyLive: live.newlyLive, detachments: detachments)
        }
    }

    /// How many detaches there have been (one atomic load; the sending thread's per-packet check).
    var detachments: Int { fanOut.detachments }

    /// The peers attached now and the detach count they go with (sending thread, after a detach).
    func attachedPeers() -> (peers: [PeerConnection], detachments: Int) { fanOut.attached() }

    /// The new bitrate cap (`Int.max` for none) when it changed since the last call.
    func takeBitrateCap() -> Int? {
        bitrateCap.withLock { c in
            guard c.changed else { return nil }
            c.changed = false
            return c.value ?? .max
        }
    }

    /// Whether a keyframe was asked for since the last call (clears the request), or a deferred peer request's
    /// interval has passed (simulcast).
    func takeKeyframeRequest() -> Bool {
        if keyframeWanted.exchange(false, ordering: .acquiringAndReleasing) {
            deferredPeerKeyframe.store(false, ordering: .relaxed)  // this keyframe answers it
            return true
        }
        guard deferredPeerKeyframe.load(ordering: .relaxed), takePeerKeyframeSlot() else { return false }
        deferredPeerKeyframe.store(false, ordering: .relaxed)
        stats.withLock { $0.keyframeRequests += 1 }
        return true
    }

    func record(_ update: (inout VideoSendStatistics) -> Void) { stats.withLock { update(&$0) } }
}
