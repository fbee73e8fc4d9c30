import TokKitRTP

/// The send side of transport-wide congestion control for one ``PeerConnection``, once negotiated: the one
/// transport-wide sequence counter shared by audio, video and retransmissions
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2: 16 bits, wrapping), the record of what was sent under
/// each number (``TransportSendHistory``), and the ``SendSideBandwidthEstimator`` fed with the peer's feedback.
///
/// Guarded by its own lock in ``PeerConnection``, taken inside a send section's lock (never the reverse):
/// ``stamp(size:now:)`` runs per packet on the sending thread, ``received(_:now:)`` per feedback message on the
/// network thread. Neither allocates once the results buffer has grown to a message's size.
struct TransportCongestionControl {
    /// Smallest relative change of the estimate worth telling the pipeline about (the encoder is reconfigured on
    /// each report).
    static let reportThreshold = 0.01

    let history: TransportSendHistory
    var estimator: SendSideBandwidthEstimator
    /// The number the next packet gets (libwebrtc starts at 1 too).
    var nextSequence: UInt16 = 1  // settable for tests (the wrap)
    private(set) var packetsStamped = 0
    private(set) var estimate: Int?
    private var lastReported: Int?
    private var results: [TransportPacketResult] = []

    /// Nil when the history cannot be made (it cannot with the default capacity).
    init?(bounds: ClosedRange<Int>) {
        guard let history = try? TransportSendHistory() else { return nil }
        self.history = history
        estimator = SendSideBandwidthEstimator(.init(minimum: bounds.lowerBound, start: bounds.upperBound,
                                                     maximum: bounds.upperBound))
        results.reserveCapacity(2048)
    }

    /// Numbers one packet of `size` bytes (RTP header included) sent at `now` (µs) and records it.
    mutating func stamp(size: Int, now: Int64) -> UInt16 {
        let sequence = nextSequence
        nextSequence &+= 1
        history.record(sequence, sendTime: now, size: size)
        packetsStamped += 1
        return sequence
    }

    /// Takes one feedback message about our packets at `now` (µs); returns the estimate when it should be
    /// reported (the first one, then changes of at least ``reportThreshold``).
    mutating func received(_ feedback: RTCPTransportWideFeedback, now: Int64) -> Int? {
        results.removeAll(keepingCapacity: true)
        history.results(for: feedback, into: &results)
        guard !results.isEmpty else { return nil }
        let target = estimator.update(now: now, packets: results)
        estimate = target
        if let last = lastReported, abs(Double(target - last)) < Self.reportThreshold * Double(last) { return nil }
        lastReported = target
        return target
    }
}
