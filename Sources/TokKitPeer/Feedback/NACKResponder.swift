import TokKitRTP

/// Answers the peer's NACKs about our video (RFC 4585 §6.2.1): every packet sent is kept, unprotected, in a
/// 512-packet history, and a packet the peer asks for is sent again with its own sequence number (no RTX is
/// negotiated; libsrtp allows the repeated protection with `allow_repeat_tx`). It lives in the video ``SendTrack``,
/// under that section's lock, beside the packet buffer it keeps copies of.
///
/// While the path is congested (``pathCongested``: the send-side estimator saw more than 10 % loss in its last
/// window) or overloaded (below) one packet is not sent again within ``resendInterval`` of its last retransmission
/// (libwebrtc's packet history waits a round trip likewise): a receiver repeats its NACK until the packet arrives
/// (TokKit's 20 ms apart at first), and behind a full queue of 100-200 ms each repetition sent the packet once more,
/// unpaced, into the queue that was dropping it (network-bench's bottleneck row: the estimate went to its floor
/// without this, with the audio's share of it left free). Otherwise every request is answered: under random loss a
/// second copy 20 ms after a lost one repairs the frame within the playout delay, where one a round trip later may
/// come too late for it (network-bench's loss row, one run each: with the rule always on up to 1.95 % frozen in a
/// direction; with it always on and the receiver's repeats a round trip apart, 1.5-2.03 % in four of eight; with it
/// under congestion only, 0.00 %).
///
/// Retransmissions are held to a rate (``RetransmissionRateLimiter``, one per connection for all its video streams:
/// ``received(_:now:limiter:output:)``): the path's estimate (``pathEstimate``; none without transport-wide
/// feedback). The path is *overloaded* after the estimator cut for an overflowing queue or under half of what we
/// send (``pathOverloaded``, ``TransportCongestionControl/overloaded(now:)``) or while the peer asks for more than a
/// quarter of our recent packets (``heavyLoss(now:)``, ``RequestedPacketMeter``: its NACKs tell it a feedback
/// window before the estimator; only with transport-wide feedback). At 5 % random loss about 2 % of NACK
/// messages read so (network-bench's loss row at ~950 kb/s). While overloaded:
/// - the rate is what the path delivers beside our media (``pathRoom``,
///   ``TransportCongestionControl/retransmissionRoom(now:)``), not the estimate;
/// - packets sent before the last key frame are not sent again: the peer skips to the key frame, and the little
///   room there is goes to the key frame's packets and those after it (the key frame is found in the VP8 payload:
///   TokKit sends VP8 only);
/// - a packet held back for the rate once the estimator has cut will not be repaired: the peer's frame is lost, and
///   its decoder waits for a key frame it would ask for only after giving the frame up (TokKit's 500 ms, then the
///   request's way back). With ``refreshesDeclinedRepairs`` the responder reports ``RTCPFeedback/repairsDeclined``
///   at once, once until the next key frame is sent or for ``refreshWait`` (the video pipeline makes the key frame,
///   within the same limit as for a peer's PLI, and counts it apart from the peer's requests; with several peers
///   every peer gets the key frame, as for a PLI): by then the encoder is at the lower target,
///   and its key frame is far smaller than the packets it replaces. Not on ``heavyLoss(now:)`` alone: before the
///   estimator has cut, the key frame would be made at the old target, the largest packet burst of all.
///
/// ``retransmissionsSuppressed`` counts what any of these rules held back.
///
/// Not a ``FeedbackUnit``: the connection answers each NACK through every video stream's responder in turn with
/// the one limiter they share, and a unit's empty default for RTCP would quietly stand in for a call without it.
struct NACKResponder {
    /// Our video SSRC: NACKs about other streams are not ours.
    let ssrc: UInt32
    private let history: RTPSendHistory
    /// NACK messages about our stream.
    private(set) var nacksReceived = 0
    /// Packets sent again.
    private(set) var retransmissions: UInt64 = 0
    /// Requests not answered: for a packet sent again less than ``resendInterval`` before while the path was
    /// congested or overloaded, beyond the rate, or sent before the last key frame while overloaded.
    private(set) var retransmissionsSuppressed: UInt64 = 0
    /// The round trip to the peer, from its receiver reports (the connection sets it before each NACK); nil while
    /// unknown.
    var roundTripTime: Duration?
    /// Whether the path is congested now (the connection sets it before each NACK, from
    /// ``TransportCongestionControl/congested``; false without transport-wide feedback).
    var pathCongested = false
    /// The path's estimate (bits per second, audio and video: the connection sets it before each NACK, from
    /// ``TransportCongestionControl/estimate``; nil without transport-wide feedback, no limit).
    var pathEstimate: Int?
    /// Whether the estimator cut the estimate for an overflowing queue, or under half of what we send, within the
    /// last second (the connection sets it before each NACK, from ``TransportCongestionControl/overloaded(now:)``).
    var pathOverloaded = false
    /// What the path delivers beside our media (bits per second: the connection sets it before each NACK, from
    /// ``TransportCongestionControl/retransmissionRoom(now:)``): the rate while the path is overloaded.
    var pathRoom: Int?
    /// The share of our packets asked for over which the path counts as overloaded (``LossBasedController``'s fast
    /// threshold).
    static let heavyLossShare = 0.25
    private var requests = RequestedPacketMeter()
    /// Whether a repair held back for the rate after the estimator's cut is reported as picture loss (off for
    /// simulcast, where a keyframe request makes one on every layer).
    var refreshesDeclinedRepairs = true
    /// When a picture loss was last reported, while no key frame has been sent since (nil: none pending).
    private var refreshAskedAt: UInt64?
    /// How long a report waits for its key frame before another may be made: the video pipeline's least interval
    /// between key frames for requests (`VideoSendPipeline.peerKeyframeInterval`), within which it passes over a
    /// request. Waiting 500 ms instead left the freeze at a bottleneck's onset ending after the send rate settled in
    /// three network-bench runs of four (one of nine when every repair held back asked).
    static let refreshWait: UInt64 = 300_000_000
    /// Picture losses reported for repairs held back.
    private(set) var declinedRepairReports = 0
    /// The least time between two retransmissions of one packet when the round trip is shorter or unknown (the round
    /// trip libwebrtc's NACK module assumes while it has none). Receiver reports come once a second and may have
    /// been measured while the path's queue was empty: behind a bottleneck the round trip then read a few ms while
    /// a full queue made it 100-200 ms.
    static let minimumResendInterval: Duration = .milliseconds(100)
    /// The most a reported round trip holds a retransmission back (a peer's wrong DLSR must not stop repairs).
    static let maximumResendInterval: Duration = .seconds(1)
    /// The least time between two retransmissions of one packet: the round trip, within ``minimumResendInterval``
    /// ... ``maximumResendInterval``.
    var resendInterval: Duration {
        min(max(roundTripTime ?? .zero, Self.minimumResendInterval), Self.maximumResendInterval)
    }
    /// Where a packet is copied to be sent again (SRTP protects in place and appends its tag).
    private var scratch: [UInt8]

    /// Nil when the history cannot be made (it cannot with these sizes).
    init?(ssrc: UInt32, capacity: Int = 512, maximumPacketSize: Int = SendTrack.capacity) {
        guard let history = try? RTPSendHistory(capacity: capacity, maximumPacketSize: maximumPacketSize)
        else { return nil }
        self.ssrc = ssrc
        self.history = history
        scratch = [UInt8](repeating: 0, count: maximumPacketSize + 64)
    }

    /// The first packet of the last key frame sent (VP8: the payload header's P bit on a frame's first packet).
    private(set) var lastKeyframeStart: UInt16?

    /// Keeps a packet of our video as sent at `now` (called by the send path, under the video section's lock).
    mutating func store(_ packet: UnsafeRawBufferPointer, now: UInt64) {
        try? history.store(packet)
        requests.packetSent(now: now)
        guard let view = try? RTPPacketView(parsing: packet) else { return }
        if let key = lastKeyframeStart, view.sequenceNumber &- key >= UInt16(history.capacity) {
            // Out of the history: nothing before it can be asked for (and its number would wrap half-way on).
            lastKeyframeStart = nil
        }
        if let descriptor = try? VP8PayloadDescriptor(parsing: view.payload), descriptor.startsFrame,
           view.payload.count > descriptor.serializedLength,
           VP8PayloadHeader.isKeyFrame(firstByte: view.payload[descriptor.serializedLength]) {
            lastKeyframeStart = view.sequenceNumber
            refreshAskedAt = nil
        }
    }

    /// Whether the packet `sequence` was sent before the key frame starting at `key`: once that arrives the peer
    /// skips to it, and a copy of an older packet repairs nothing it will show.
    private static func precedes(_ sequence: UInt16, keyframe key: UInt16?) -> Bool {
        guard let key else { return false }
        return Int16(bitPattern: sequence &- key) < 0
    }

    /// Whether the peer asked for more than ``heavyLossShare`` of our packets lately.
    mutating func heavyLoss(now: UInt64) -> Bool { (requests.share(now: now) ?? 0) > Self.heavyLossShare }

    /// A NACK, its copies held to `limiter` (``PeerConnection`` shares one among all the video streams it sends).
    mutating func received<Output: FeedbackOutput>(_ packet: RTCPPacket, now: UInt64,
                                                   limiter: inout RetransmissionRateLimiter, output: inout Output) {
        guard case .genericNACK(let nack) = packet, nack.mediaSSRC == ssrc else { return }
        nacksReceived += 1
        var sent: UInt64 = 0
        var suppressed: UInt64 = 0
        var declined = false
        let history = history
        nack.forEachLostSequenceNumber { sequence in
            if history.markRequested(sequenceNumber: sequence) { requests.packetRequested(now: now) }
        }
        let heavy = pathEstimate != nil && heavyLoss(now: now)
        let overloaded = pathOverloaded || heavy
        let congested = pathCongested || overloaded
        let rate = overloaded ? pathRoom ?? pathEstimate : pathEstimate
        let estimatorCut = pathOverloaded
        let keyframe = lastKeyframeStart
        let interval = UInt64(resendInterval.components.seconds) * 1_000_000_000
            + UInt64(resendInterval.components.attoseconds / 1_000_000_000)
        scratch.withUnsafeMutableBytes { buffer in
            nack.forEachLostSequenceNumber { sequence in
                guard let packet = history.packet(sequenceNumber: sequence) else { return }
                if overloaded, Self.precedes(sequence, keyframe: keyframe) {
                    suppressed += 1
                    return
                }
                if congested, let last = history.lastResent(sequenceNumber: sequence), now &- last < interval {
                    suppressed += 1
                    return
                }
                guard limiter.allows(packet.count + TransportCongestionControl.wireOverhead, now: now,
                                     rate: rate) else {
                    suppressed += 1
                    declined = declined || estimatorCut
                    return
                }
                buffer.copyMemory(from: packet)
                if output.resendRTP(buffer, length: packet.count) {
                    sent += 1
                    history.markResent(sequenceNumber: sequence, at: now)
                }
            }
        }
        retransmissions += sent
        retransmissionsSuppressed += suppressed
        if declined && refreshesDeclinedRepairs, refreshAskedAt.map({ now &- $0 >= Self.refreshWait }) ?? true {
            refreshAskedAt = now
            declinedRepairReports += 1
            output.notify(.video, .repairsDeclined)
        }
    }
}
