import TokKitMedia
import TokKitPeer

/// The work of a ``VideoSendPipeline``'s sending thread for one packet taken from its ``PacketSendQueue``: wait
/// until the ``PacketPacer`` lets it go (paced at the path's estimate the frame was encoded under; at once before
/// there is one), then send it to every peer the frame was encoded for that is still attached. Send counts go to the
/// pipeline's statistics once per frame (at its last packet, the one with the marker), not per packet.
///
/// Owned by the sending thread (not `Sendable`); allocates nothing per packet (the attached peers' list at most
/// once per frame or simulcast layer, and only while packets queued before a detach are sent).
struct VideoPacketSendStage {
    unowned let pipeline: VideoSendPipeline
    private var pacer = PacketPacer(targetBitrate: 500_000)
    private var sent = 0
    private var failed = 0
    /// The attached peers as of ``attachedDetachments`` detaches, taken after a detach, dropped at each frame's end.
    private var attached: [PeerConnection] = []
    private var attachedDetachments = -1

    init(pipeline: VideoSendPipeline) {
        self.pipeline = pipeline
    }

    /// Sends one packet; false when the pipeline closed during the pacing wait (the packet is not sent).
    mutating func send(_ payload: UnsafeRawBufferPointer, _ header: PacketSendQueue.Header) -> Bool {
        // A peer detached since the frame was encoded gets none of its packets still queued, nor one detached
        // while this packet waits for the pacer.
        var only = recipients(header)
        // A packet nobody is left to receive is not paced either (it would hold up the frames behind it).
        let anyone = only.map { only in header.peers.contains { peer in only.contains { $0 === peer } } } ?? true
        // Paced at the path's rate as the peers' estimates have it (libwebrtc paces at the estimate, not at the
        // encoder's target: an encoder overshooting a low configured bitrate must not be held to it on a fast path).
        // Before the first estimate nothing is known of the path: the first keyframe goes at once (paced at the
        // configured bitrate, it added ~30 ms to the first frame a new subscriber sees).
        if header.estimate != Int.max {
            if header.frameBytes > 0 { pacer.beginFrame(bytes: header.frameBytes, targetBitrate: header.estimate,
                                                            factor: header.pacingFactor) }
            if anyone {
                let wait = pacer.delay(sending: payload.count + PacketPacer.packetOverhead, at: MonotonicClock.now())
                if wait > .zero {
                    guard pipeline.pace(until: MonotonicClock.now() + wait) else { return false }
                    only = recipients(header)  // a peer detached during the wait gets nothing either
                }
            }
        }
        if anyone {
            let result = header.layers == 1
                ? PeerFanOut.send(.video, payload: payload, timestamp: header.timestamp, marker: header.marker,
                                  to: header.peers, attached: only)
                : PeerFanOut.sendVideoLayer(header.layer, of: header.layers, payload: payload,
                                            timestamp: header.timestamp, marker: header.marker, to: header.peers,
                                            attached: only)
            sent += result.sent
            failed += result.failed
        }
        if header.marker {
            flush()
            // Not kept past the frame (each simulcast layer's last packet): with nothing more queued, a peer
            // detached later must not stay referenced here until the next packet.
            attached = []
            attachedDetachments = -1
        }
        return true
    }

    /// The peers still attached among those `header`'s frame was encoded for, when some were detached since (nil:
    /// none was, send to all). One atomic load; the attached peers are taken with the lock once per detach and frame.
    private mutating func recipients(_ header: PacketSendQueue.Header) -> [PeerConnection]? {
        let detachments = pipeline.detachments
        guard detachments != header.detachments else { return nil }
        if detachments != attachedDetachments { (attached, attachedDetachments) = pipeline.attachedPeers() }
        return attached
    }

    /// Records the counts not yet recorded.
    mutating func flush() {
        guard sent > 0 || failed > 0 else { return }
        let (sent, failed) = (self.sent, self.failed)
        pipeline.record { s in
            s.packetsSent += sent
            s.sendErrors += failed
        }
        self.sent = 0
        self.failed = 0
    }
}
