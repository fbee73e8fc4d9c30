import TokKitRTP

/// The send side of transport-wide congestion control, once negotiated: the one transport-wide sequence counter
/// shared by audio, video and retransmissions (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2: 16 bits,
/// wrapping), written into each packet we send and recorded with its send time and size
/// (``TransportSendHistory``), and the ``SendSideBandwidthEstimator`` (draft-ietf-rmcat-gcc-02) fed with the peer's
/// feedback. The estimate is the path's, for everything we send; the video section is told what is left of it once
/// the audio and the video's retransmissions are sent (``videoShare(of:now:)``, as
/// ``RTCPFeedback/sendSideEstimatedBitrate(_:)``).
///
/// Neither path allocates once the results buffer has grown to a message's size.
struct TransportCongestionControl: FeedbackUnit {
    /// Smallest relative change of the estimate worth telling the pipeline about (the encoder is reconfigured on
    /// each report).
    static let reportThreshold = 0.01

    let history: TransportSendHistory
    var estimator: SendSideBandwidthEstimator
    /// The number the next packet gets (libwebrtc starts at 1 too).
    var nextSequence: UInt16 = 1  // settable for tests (the wrap)
    private(set) var packetsStamped = 0
    /// The path's estimate (bits per second), audio and video together.
    private(set) var estimate: Int?
    /// What the audio sends, counted on the wire: its share of the estimate is not the video's.
    private var audioSent = SendRateMeter()
    /// What the video sends on the wire, retransmissions included, and the retransmissions alone: the part of the
    /// video's share that repairs take is not the encoder's either (``videoShare(of:now:)``).
    private var videoSent = SendRateMeter()
    private var retransmitted = SendRateMeter()
    /// Where the number's two bytes sit in each section's packets (the header layout never changes: no CSRCs, this
    /// one element); nil for a section that does not carry the extension.
    private var audioOffset: Int?
    private var videoOffset: Int?
    private var lastReported: Int?
    /// When a cut last took the estimate under half of the media we sent over the last second (µs): the path stopped
    /// carrying what we send, and overloads at once (``overloaded(now:)``). The first cut at a bottleneck's onset is
    /// often a delay over-use without heavy loss yet (the loss shows in the next feedback, ~200 ms later, behind a
    /// queue as full in the other direction); until then retransmissions were held only to the estimate, and in
    /// network-bench's bottleneck row 300-600 kb/s of copies went into the full 500 kb/s queue, the key frame coming
    /// only with the deeper cut. Under the loss row's 5 % random loss a cut is of 0.85 × what arrives (about 0.81 of
    /// what was sent) or of a few per cent for the loss: no collapse. With it, one freeze from the cap on in 16 runs
    /// of 24 (without, 11 of 26), the key frame made 35-140 ms after the first cut (without, 250-350 ms); the runs
    /// without a freeze after settling, 18 of 24 (without, 22 of 26), are within the row's noise. The first
    /// feedback is never a collapse: there is no estimate before it to cut.
    private(set) var lastCollapse: Int64?
    private var results: [TransportPacketResult] = []

    /// Nil when the history cannot be made (it cannot with the default capacity).
    init?(bounds: ClosedRange<Int>) {
        guard let history = try? TransportSendHistory() else { return nil }
        self.history = history
        estimator = SendSideBandwidthEstimator(.init(minimum: bounds.lowerBound, start: bounds.upperBound,
                                                     maximum: bounds.upperBound))
        results.reserveCapacity(2048)
    }

    /// `section`'s packets carry the number at byte `offset` (nil: they do not carry it).
    mutating func setOffset(_ offset: Int?, for section: MediaKind) {
        if section == .audio { audioOffset = offset } else { videoOffset = offset }
    }

    /// Bytes a packet takes on the wire beside its RTP bytes: the SRTP tag (10), UDP (8) and IPv4 (20) headers.
    static let wireOverhead = 38
    /// The part of what is left after the audio that the video encoder may use: its packets' RTP headers and
    /// ``wireOverhead`` take the rest (~60 bytes on the wire for a ~1,100-byte payload).
    static let videoPayloadShare = 0.96

    /// Numbers the packet of `length` bytes (RTP header included) about to go out on `section` at `now` and
    /// records it with its size on the wire (``wireOverhead`` more: the estimate is of what the path carries); nil
    /// when the section does not carry the number. The send path writes it into the packet. Numbered packets are
    /// also counted for ``videoShare(of:now:)``, video `retransmission`s apart (what is not numbered is not in the
    /// estimate either).
    mutating func stamp(_ section: MediaKind, length: Int, now: UInt64,
                        retransmission: Bool = false) -> TransportStamp? {
        guard let offset = section == .audio ? audioOffset : videoOffset, offset + 2 <= length else { return nil }
        let size = length + Self.wireOverhead, time = Int64(now / 1000)
        if section == .audio {
            audioSent.add(size, now: time)
        } else {
            videoSent.add(size, now: time)
            retransmitted.add(retransmission ? size : 0, now: time)  // the same buckets as `videoSent`
        }
        return TransportStamp(offset: offset, sequenceNumber: stamp(size: size, now: time))
    }

    mutating func received<Output: FeedbackOutput>(_ feedback: RTCPTransportWideFeedback, now: UInt64,
                                                   output: inout Output) {
        if let estimate = received(feedback, now: Int64(now / 1000)) {
            output.notify(.video, .sendSideEstimatedBitrate(UInt64(estimate)))
        }
    }

    /// Numbers one packet of `size` bytes (on the wire) sent at `now` (µs) and records it.
    mutating func stamp(size: Int, now: Int64) -> UInt16 {
        let sequence = nextSequence
        nextSequence &+= 1
        history.record(sequence, sendTime: now, size: size)
        packetsStamped += 1
        return sequence
    }

    /// Whether the path shows congestion: the loss-based controller's last window lost more than it tolerates
    /// (``LossBasedController/decreaseLoss``). Retransmissions are then held to one a round trip
    /// (``NACKResponder``).
    var congested: Bool { estimator.lossBased.lastLossFraction > LossBasedController.decreaseLoss }

    /// What the path has room for beside our media at `now` (µs; bits per second, nil without an estimate), the rate
    /// retransmissions are held to while the path is overloaded (``NACKResponder``): the lower of the estimate and
    /// what the path delivered lately (``ReceivedRateMeter/recentBitsPerSecond``), less the audio and video sent
    /// over the last second, at least the estimator's minimum. Right after a bottleneck's onset the encoder still
    /// sends at the old rate for a while, and the estimate may be far over what was ever sent (it starts at the
    /// maximum); retransmissions up to it beside the media kept the queue full (network-bench's bottleneck row: the
    /// send rate at twice the cap for 0.2 s, 400-500 kb/s of it copies), and the key frame asked for was lost in it.
    /// The media over the last second still holds the rate from before a cut, so for most of a second after one the
    /// room is the minimum: repairs then wait for the receiver's later requests, or give way to a key frame.
    func retransmissionRoom(now: Int64) -> Int? {
        guard let estimate else { return nil }
        let delivered = estimator.receivedRate.recentBitsPerSecond.map { min($0, estimate) } ?? estimate
        return max(delivered - mediaRate(now: now), estimator.configuration.minimum)
    }

    /// How long after a cut for an overflowing queue, or a collapse, the path counts as overloaded (µs).
    static let overloadHold: Int64 = 1_000_000

    /// Whether the path is overloaded at `now` (µs): within ``overloadHold`` of a cut for a queue that overflowed
    /// (an over-use with heavy loss, ``AIMDRateController/overflowDecreaseFactor``) or of a collapse
    /// (``lastCollapse``): a bottleneck's onset, not the random loss ``congested`` also reads (at 5 % random loss
    /// with jitter, the estimator's 1 s loss window went over 10 % in about a third of network-bench's loss row).
    func overloaded(now: Int64) -> Bool {
        func recent(_ cut: Int64?) -> Bool { cut.map { now - $0 < Self.overloadHold } ?? false }
        return recent(estimator.delayBased.lastOverflowDecrease) || recent(lastCollapse)
    }

    /// The media sent over about the last second (``SendRateMeter``'s two buckets), audio and video, retransmissions
    /// apart (bits per second on the wire).
    private func mediaRate(now: Int64) -> Int {
        audioSent.bitsPerSecond(now: now) + videoSent.bitsPerSecond(now: now) - retransmitted.bitsPerSecond(now: now)
    }

    /// The most of the video's share that retransmissions are taken to need (libwebrtc's protection overhead
    /// threshold): under heavy loss the encoder keeps at least half.
    static let maximumRetransmissionShare = 0.5

    /// What the video encoder may use of the path's `estimate` at `now` (bits per second): the estimate less the
    /// audio's rate, less the part of the video's that went to retransmissions over the last second (at most
    /// ``maximumRetransmissionShare``), less the video's own packet headers, never under the estimator's minimum
    /// (all in bytes on the wire, as the estimate). The estimate covers every numbered packet we send. Given to the
    /// video whole, audio and video together went over it (100 kb/s of Opus with redundancy on a 500 kb/s path:
    /// 20 %), the loss never stopped, and the loss-based controller took the estimate to its floor (network-bench's
    /// bottleneck row) or, held up, key frames lost at the full bottleneck were asked for again and again.
    /// Retransmissions likewise: after a cut the lost packets were resent beside an encoder already at the whole
    /// share, the path stayed over its capacity for seconds and lost the repairs too. libwebrtc's bitrate allocator
    /// gives audio its share first, and its FEC controller leaves the encoder what protection does not take.
    func videoShare(of estimate: Int, now: Int64) -> Int {
        let video = videoSent.bitsPerSecond(now: now)
        let repairs = video > 0 ? Double(retransmitted.bitsPerSecond(now: now)) / Double(video) : 0
        let left = Double(estimate - audioSent.bitsPerSecond(now: now))
            * (1 - min(repairs, Self.maximumRetransmissionShare))
            * Self.videoPayloadShare
        return max(Int(left), estimator.configuration.minimum)
    }

    /// Takes one feedback message about our packets at `now` (µs); returns the video's share of the estimate
    /// (``videoShare(of:now:)``) when it should be reported (the first one, then changes of at least
    /// ``reportThreshold``).
    mutating func received(_ feedback: RTCPTransportWideFeedback, now: Int64) -> Int? {
        results.removeAll(keepingCapacity: true)
        history.results(for: feedback, into: &results)
        guard !results.isEmpty else { return nil }
        let before = estimate
        estimate = estimator.update(now: now, packets: results)
        if let before, let estimate, estimate < before, estimate < mediaRate(now: now) / 2 { lastCollapse = now }
        let target = videoShare(of: estimator.target, now: now)
        if let last = lastReported, abs(Double(target - last)) < Self.reportThreshold * Double(last) { return nil }
        lastReported = target
        return target
    }
}

/// A transport-wide sequence number for one outgoing packet and where it goes in it.
struct TransportStamp: Sendable, Hashable {
    let offset: Int
    let sequenceNumber: UInt16

    /// Writes the number into `packet` (big-endian, the element value of RFC 8285 §4.2).
    func write(into packet: UnsafeMutableRawBufferPointer) {
        packet[offset] = UInt8(sequenceNumber >> 8)
        packet[offset + 1] = UInt8(truncatingIfNeeded: sequenceNumber)
    }
}
