import TokKitRTP

/// The send side of transport-wide congestion control, once negotiated: the one transport-wide sequence counter
/// shared by audio, video and retransmissions (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2: 16 bits,
/// wrapping), written into each packet we send and recorded with its send time and size
/// (``TransportSendHistory``), and the ``SendSideBandwidthEstimator`` (draft-ietf-rmcat-gcc-02) fed with the peer's
/// feedback, whose estimate goes to the video section as ``RTCPFeedback/sendSideEstimatedBitrate(_:)``.
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
    private(set) var estimate: Int?
    /// Where the number's two bytes sit in each section's packets (the header layout never changes: no CSRCs, this
    /// one element); nil for a section that does not carry the extension.
    private var audioOffset: Int?
    private var videoOffset: Int?
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

    /// `section`'s packets carry the number at byte `offset` (nil: they do not carry it).
    mutating func setOffset(_ offset: Int?, for section: MediaKind) {
        if section == .audio { audioOffset = offset } else { videoOffset = offset }
    }

    /// Numbers the packet of `length` bytes (RTP header included) about to go out on `section` at `now` and
    /// records it; nil when the section does not carry the number. The send path writes it into the packet.
    mutating func stamp(_ section: MediaKind, length: Int, now: UInt64) -> TransportStamp? {
        guard let offset = section == .audio ? audioOffset : videoOffset, offset + 2 <= length else { return nil }
        return TransportStamp(offset: offset, sequenceNumber: stamp(size: length, now: Int64(now / 1000)))
    }

    mutating func received<Output: FeedbackOutput>(_ feedback: RTCPTransportWideFeedback, now: UInt64,
                                                   output: inout Output) {
        if let estimate = received(feedback, now: Int64(now / 1000)) {
            output.notify(.video, .sendSideEstimatedBitrate(UInt64(estimate)))
        }
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
