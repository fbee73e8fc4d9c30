import TokKitRTP

/// The receiving half of one media section: the peer's SSRC and payload type from its SDP (SSRC learnt from
/// the first packet with the payload type when the SDP has none), reception statistics (RFC 3550 A.1, A.3,
/// A.8), the peer's last SR for LSR/DLSR and, for video, the NACK generator and a scratch buffer for the
/// feedback we send. Guarded by its own lock in ``PeerConnection``; updated on the network thread.
struct ReceiveTrack {
    let kind: MediaKind
    let payloadType: UInt8
    var ssrc: UInt32?
    var statistics: RTPReceptionStatistics?
    var packets: UInt64 = 0
    var payloadBytes: UInt64 = 0
    /// Compact NTP of the peer's last SR and when it arrived (monotonic ns).
    var lastSenderReport: UInt32 = 0
    var lastSenderReportArrival: UInt64 = 0
    var senderReports = 0
    /// Video only: missing sequence numbers to request (RFC 4585 §6.2.1).
    let nack: NACKGenerator?
    var nacksSent = 0
    var keyFrameRequestsSent = 0
    /// Where feedback packets (NACK, PLI) are written before SRTCP protection; sized for a full NACK list.
    var scratch = [UInt8](repeating: 0, count: 1500)

    init(kind: MediaKind, payloadType: UInt8, ssrc: UInt32?) {
        self.kind = kind
        self.payloadType = payloadType
        self.ssrc = ssrc
        nack = kind == .video ? try? NACKGenerator() : nil
    }

    /// Whether a packet with this SSRC/payload type belongs here.
    func accepts(ssrc packetSSRC: UInt32, payloadType pt: UInt8) -> Bool {
        if let ssrc { return ssrc == packetSSRC }
        return pt == payloadType
    }

    mutating func update(ssrc packetSSRC: UInt32, sequenceNumber: UInt16, timestamp: UInt32, payloadLength: Int,
                         arrivalNanoseconds: UInt64) {
        if ssrc == nil { ssrc = packetSSRC }
        if statistics == nil { statistics = RTPReceptionStatistics(ssrc: packetSSRC) }
        let arrival = UInt32(truncatingIfNeeded: arrivalNanoseconds / 1000 * UInt64(kind.clockRate) / 1_000_000)
        let verdict = statistics?.update(sequenceNumber: sequenceNumber, rtpTimestamp: timestamp, arrival: arrival)
        if verdict == .rejected { return }
        packets += 1
        payloadBytes += UInt64(payloadLength)
    }

    /// Writes a generic NACK (RFC 4585 §6.2.1) for the sequence numbers due now into ``scratch`` and hands it to
    /// `send`; nothing when none is due. Allocates nothing.
    mutating func sendDueNACK(senderSSRC: UInt32, now: UInt64,
                              _ send: (UnsafeMutableRawBufferPointer, Int) -> Void) {
        guard let nack, nack.missingCount > 0, let mediaSSRC = ssrc else { return }
        let due = nack.pending(now: now)
        guard !due.isEmpty else { return }
        scratch.withUnsafeMutableBytes { buffer in
            let body = UnsafeMutableRawBufferPointer(rebasing: buffer[..<(buffer.count - 64)])
            guard let length = try? RTCPGenericNACK.write(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC,
                                                           lostSequenceNumbers: due, into: body)
            else { return }
            send(buffer, length)
        }
        nacksSent += 1
    }

    /// The report block for our next SR/RR, nil before any packet.
    mutating func reportBlock(now: UInt64) -> RTCPReportBlock? {
        guard statistics != nil else { return nil }
        let dlsr = lastSenderReport == 0 ? 0
            : NTPTimestamp.compact(.nanoseconds(Int64(now &- lastSenderReportArrival)))
        return statistics?.makeReportBlock(lastSenderReport: lastSenderReport, delaySinceLastSenderReport: dlsr)
    }
}
