import TokKitRTP

/// RTCP sender and receiver reports (RFC 3550 §6.4) for both sections: reception statistics of the peer's streams
/// (loss, jitter, A.1/A.3/A.8), the peer's last SR for LSR/DLSR, and on our side the SRs we sent and what the peer
/// reports about our streams, with the round-trip time A − LSR − DLSR.
///
/// Every poll writes one compound packet (reduced size, no SDES: rtcp-rsize): an SR per sending section, the
/// first carrying a report block per received stream, or an RR when we send nothing. Sender counters come from
/// the connection's send path (``updateSender(_:packets:octets:rtpTimestamp:)``) just before. NTP times are
/// ``PeerClock/ntp(at:)`` of `now`: the mapping is fixed, so no wall clock is read here.
struct RTCPReporter: FeedbackUnit {
    /// Our stream on one section, as the peer's reports describe it.
    struct Sender {
        let ssrc: UInt32
        var packets: UInt64 = 0
        var octets: UInt64 = 0
        var rtpTimestamp: UInt32 = 0
        var senderReports = 0
        /// Compact NTP of the last SRs we sent (LSR values the peer may echo), newest first.
        var sentReports: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        var receptionReports = 0
        var remoteLost: Int64 = 0
        /// The last report's fraction lost, in 1/256 (RFC 3550 §6.4.1).
        var remoteFractionLost: UInt8 = 0
        var remoteJitter: UInt32 = 0
        var roundTripTime: Duration?
    }

    /// The peer's stream on one section.
    struct Receiver {
        let clockRate: Int
        /// The peer's SSRC, from its description or its first packet.
        var ssrc: UInt32?
        var statistics: RTPReceptionStatistics?
        var packets: UInt64 = 0
        var payloadBytes: UInt64 = 0
        /// Compact NTP of the peer's last SR and when it arrived (monotonic ns).
        var lastSenderReport: UInt32 = 0
        var lastSenderReportArrival: UInt64 = 0
        var senderReports = 0
        /// The peer's last SR: its NTP time and the RTP timestamp of the same instant.
        var lastSenderReportTimes: RemoteSenderReport?
    }

    private let clock: PeerClock
    /// The SSRC an RR is sent from when we send no stream.
    private let reporterSSRC: UInt32
    /// Per section, the RTP timestamp of monotonic time zero when our stream's timestamps come from the capture
    /// clock (``PeerConnection/setSendTimestampOrigin(_:rtpTimestampAtZero:)``, which may come before the
    /// description that adds the sender): an SR then carries the timestamp of its own instant.
    private var audioTimestampOrigin: UInt32?
    private var videoTimestampOrigin: UInt32?
    private(set) var audioSender: Sender?
    private(set) var videoSender: Sender?
    private(set) var audioReceiver: Receiver?
    private(set) var videoReceiver: Receiver?

    init(clock: PeerClock, reporterSSRC: UInt32) {
        self.clock = clock
        self.reporterSSRC = reporterSSRC
    }

    /// We send `ssrc` on `section`.
    mutating func addSender(_ section: MediaKind, ssrc: UInt32) {
        self[sender: section] = Sender(ssrc: ssrc)
    }

    /// We receive the peer's stream on `section` (`ssrc` when its description names it).
    mutating func addReceiver(_ section: MediaKind, ssrc: UInt32?) {
        self[receiver: section] = Receiver(clockRate: section.clockRate, ssrc: ssrc)
    }

    /// Our counters for `section` as of now (RFC 3550 §6.4.1 sender info).
    mutating func updateSender(_ section: MediaKind, packets: UInt64, octets: UInt64, rtpTimestamp: UInt32) {
        guard self[sender: section] != nil else { return }
        self[sender: section]!.packets = packets
        self[sender: section]!.octets = octets
        self[sender: section]!.rtpTimestamp = rtpTimestamp
    }

    /// Our `section` stream's RTP timestamps are `rtpTimestampAtZero + t × clockRate` of monotonic time `t`.
    mutating func setSendTimestampOrigin(_ section: MediaKind, rtpTimestampAtZero: UInt32) {
        if section == .audio { audioTimestampOrigin = rtpTimestampAtZero } else { videoTimestampOrigin = rtpTimestampAtZero }
    }

    subscript(sender section: MediaKind) -> Sender? {
        get { section == .audio ? audioSender : videoSender }
        set { if section == .audio { audioSender = newValue } else { videoSender = newValue } }
    }

    subscript(receiver section: MediaKind) -> Receiver? {
        get { section == .audio ? audioReceiver : videoReceiver }
        set { if section == .audio { audioReceiver = newValue } else { videoReceiver = newValue } }
    }

    // MARK: - Inputs

    mutating func received<Output: FeedbackOutput>(_ packet: ReceivedRTP, section: MediaKind?, now: UInt64,
                                                   output: inout Output) {
        guard let section, var r = self[receiver: section] else { return }
        if r.ssrc == nil { r.ssrc = packet.ssrc }
        if r.statistics == nil { r.statistics = RTPReceptionStatistics(ssrc: packet.ssrc) }
        // Arrival in the section's RTP clock units, for interarrival jitter (RFC 3550 A.8).
        let arrival = UInt32(truncatingIfNeeded: now / 1000 &* UInt64(r.clockRate) / 1_000_000)
        let verdict = r.statistics?.update(sequenceNumber: packet.sequenceNumber, rtpTimestamp: packet.timestamp,
                                           arrival: arrival)
        if verdict != .rejected {
            r.packets += 1
            r.payloadBytes += UInt64(packet.payloadLength)
        }
        self[receiver: section] = r
    }

    mutating func received<Output: FeedbackOutput>(_ packet: RTCPPacket, now: UInt64, output: inout Output) {
        switch packet {
        case .senderReport(let sr):
            for section in MediaKind.allCases where self[receiver: section]?.ssrc == sr.ssrc {
                self[receiver: section]!.lastSenderReport = sr.ntpTimestamp.compact
                self[receiver: section]!.lastSenderReportArrival = now
                self[receiver: section]!.senderReports += 1
                self[receiver: section]!.lastSenderReportTimes = RemoteSenderReport(
                    ntp: sr.ntpTimestamp, rtpTimestamp: sr.rtpTimestamp)
            }
            apply(sr.reports, now: now)
        case .receiverReport(let rr):
            apply(rr.reports, now: now)
        default:
            break
        }
    }

    /// Writes the compound report (the connection's timer calls this every RTCP interval).
    mutating func poll<Output: FeedbackOutput>(now: UInt64, output: inout Output) {
        let ntp = clock.ntp(at: now)
        var blocks: [RTCPReportBlock] = []
        for section in MediaKind.allCases {
            if let block = reportBlock(section, now: now) { blocks.append(block) }
        }
        var packets: [RTCPPacket] = []
        for section in MediaKind.allCases {
            guard var s = self[sender: section] else { continue }
            s.sentReports = (ntp.compact, s.sentReports.0, s.sentReports.1, s.sentReports.2)
            s.senderReports += 1
            self[sender: section] = s
            // RFC 3550 §6.4.1: the RTP timestamp of the same instant as the NTP one. With the capture clock's
            // mapping that is exact (RTPClockMapping's arithmetic); without, the last packet's is the best known.
            let origin = section == .audio ? audioTimestampOrigin : videoTimestampOrigin
            let rtpTimestamp = origin.map {
                $0 &+ UInt32(truncatingIfNeeded: (now / 1_000) &* UInt64(section.clockRate) / 1_000_000)
            } ?? s.rtpTimestamp
            var sr = RTCPSenderReport(ssrc: s.ssrc, ntpTimestamp: ntp, rtpTimestamp: rtpTimestamp,
                                      packetCount: UInt32(truncatingIfNeeded: s.packets),
                                      octetCount: UInt32(truncatingIfNeeded: s.octets))
            if packets.isEmpty { sr.reports = blocks }
            packets.append(.senderReport(sr))
        }
        if packets.isEmpty { packets.append(.receiverReport(RTCPReceiverReport(ssrc: reporterSSRC, reports: blocks))) }
        guard var bytes = try? RTCPCompoundPacket(packets: packets).serialized() else { return }
        let length = bytes.count
        bytes += repeatElement(0, count: 64)
        bytes.withUnsafeMutableBytes { _ = output.sendRTCP($0, length: length) }
    }

    // MARK: - Internals

    /// The report block about the peer's stream on `section`, nil before its first packet.
    private mutating func reportBlock(_ section: MediaKind, now: UInt64) -> RTCPReportBlock? {
        guard var r = self[receiver: section], r.statistics != nil else { return nil }
        let dlsr = r.lastSenderReport == 0 ? 0
            : NTPTimestamp.compact(.nanoseconds(Int64(clamping: now &- r.lastSenderReportArrival)))
        let block = r.statistics?.makeReportBlock(lastSenderReport: r.lastSenderReport,
                                                  delaySinceLastSenderReport: dlsr)
        self[receiver: section] = r
        return block
    }

    /// Takes report blocks about our streams: loss, jitter and RTT = A − LSR − DLSR (RFC 3550 §6.4.1).
    private mutating func apply(_ blocks: [RTCPReportBlock], now: UInt64) {
        let arrival = clock.ntp(at: now).compact
        for block in blocks {
            for section in MediaKind.allCases where self[sender: section]?.ssrc == block.ssrc {
                var s = self[sender: section]!
                s.receptionReports += 1
                s.remoteLost = Int64(block.cumulativeLost)
                s.remoteFractionLost = block.fractionLost
                s.remoteJitter = block.jitter
                let lsr = block.lastSenderReport
                let sent = s.sentReports
                if lsr != 0, lsr == sent.0 || lsr == sent.1 || lsr == sent.2 || lsr == sent.3 {
                    let rtt = arrival &- lsr &- block.delaySinceLastSenderReport
                    if rtt < 0x8000_0000 { s.roundTripTime = PeerClock.duration(compact: rtt) }  // else: negative
                }
                self[sender: section] = s
            }
        }
    }
}
