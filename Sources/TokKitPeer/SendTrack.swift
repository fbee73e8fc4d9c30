import TokKitRTP

/// The sending half of one media section: negotiated SSRC and payload type, the next sequence number, the
/// SR counters, a preallocated packet buffer and, for video, the history of sent packets that NACKs are answered
/// from. Guarded by its own lock in ``PeerConnection``; used on the caller's media thread (and on the network
/// thread for RTCP feedback and by the RTCP timer for the counters).
struct SendTrack {
    static let capacity = 1500

    let kind: MediaKind
    let ssrc: UInt32
    let payloadType: UInt8
    var sequenceNumber = UInt16.random(in: 0...UInt16.max)
    var lastTimestamp: UInt32 = 0
    var packets: UInt64 = 0
    var payloadBytes: UInt64 = 0
    var senderReports = 0
    /// LSR values of the SRs we sent (compact NTP), for matching reception reports; the last few.
    var sentReports: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
    var remoteLost: Int64 = 0
    /// The last reception report's fraction lost (RFC 3550 §6.4.1: lost / expected since the previous report,
    /// in 1/256).
    var remoteFractionLost: UInt8 = 0
    var remoteJitter: UInt32 = 0
    var roundTripTime: Duration?
    var receptionReports = 0
    /// Video only: the last packets sent, unprotected, for retransmission (RFC 4585 §6.2.1, same SSRC and
    /// sequence number: no RTX is negotiated).
    let history: RTPSendHistory?
    var retransmissions: UInt64 = 0
    var nacksReceived = 0
    var keyFrameRequestsReceived = 0
    /// Command sequence number of the last FIR acted on (RFC 5104 §4.3.1.2: repeats carry the same one).
    var lastFullIntraRequest: UInt8?
    let buffer: UnsafeMutableRawBufferPointer
    /// The negotiated id of the transport-wide sequence number extension when this section carries it
    /// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2), and the header's extension list holding a
    /// placeholder for it, made once: each packet's number is written in place after the header.
    let transportSequenceID: UInt8?
    let extensions: [RTPHeaderExtension]
    /// Where that number's two bytes sit in every packet of this track (the header layout never changes: no
    /// CSRCs, this one element), found once by parsing a template header; nil when not stamped.
    let transportSequenceOffset: Int?

    init(kind: MediaKind, ssrc: UInt32, payloadType: UInt8, transportSequenceID: UInt8? = nil) {
        self.kind = kind
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.transportSequenceID = transportSequenceID
        let extensions = transportSequenceID.map { [RTPHeaderExtension(id: $0, value: [0, 0])] } ?? []
        self.extensions = extensions
        if let id = transportSequenceID {
            transportSequenceOffset = Self.valueOffset(id: id, header: RTPHeader(
                payloadType: payloadType, sequenceNumber: 0, timestamp: 0, ssrc: ssrc, extensions: extensions))
        } else {
            transportSequenceOffset = nil
        }
        buffer = .allocate(byteCount: Self.capacity + 64, alignment: 8)
        history = kind == .video ? try? RTPSendHistory(capacity: 512, maximumPacketSize: Self.capacity) : nil
    }

    func deallocate() { buffer.deallocate() }

    /// The offset of extension element `id`'s value in `header` once serialized (RFC 8285 §4.2), or nil.
    private static func valueOffset(id: UInt8, header: RTPHeader) -> Int? {
        var bytes = [UInt8](repeating: 0, count: header.serializedLength)
        return bytes.withUnsafeMutableBytes { raw -> Int? in
            guard (try? header.write(into: raw)) != nil,
                  let view = try? RTPPacketView(parsing: UnsafeRawBufferPointer(raw)),
                  let value = view.extensions.value(id: id), value.count == 2,
                  let start = value.baseAddress, let base = raw.baseAddress
            else { return nil }
            return start - UnsafeRawPointer(base)
        }
    }

    mutating func rememberSenderReport(_ compact: UInt32) {
        sentReports = (compact, sentReports.0, sentReports.1, sentReports.2)
        senderReports += 1
    }

    /// Takes a reception report about our stream (RFC 3550 §6.4.1): RTT = A − LSR − DLSR.
    mutating func apply(_ block: RTCPReportBlock, arrival: UInt32) {
        receptionReports += 1
        remoteLost = Int64(block.cumulativeLost)
        remoteFractionLost = block.fractionLost
        remoteJitter = block.jitter
        let lsr = block.lastSenderReport
        guard lsr != 0, lsr == sentReports.0 || lsr == sentReports.1 || lsr == sentReports.2 || lsr == sentReports.3
        else { return }
        let rtt = arrival &- lsr &- block.delaySinceLastSenderReport
        guard rtt < 0x8000_0000 else { return }  // negative: clocks went backwards
        roundTripTime = RTCPClock.duration(compact: rtt)
    }
}
