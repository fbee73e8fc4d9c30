/// The receiving half of one media section: the peer's payload type and SSRC from its description (the SSRC learnt
/// from the first packet with that payload type when the description has none). Guarded by its own lock in
/// ``PeerConnection``; matched against every RTP packet on the network thread. Reception statistics live in the
/// ``RTCPReporter``, NACKs in the ``NACKRequester``.
struct ReceiveTrack {
    let kind: MediaKind
    let payloadType: UInt8
    /// Audio: the negotiated RFC 2198 `red` payload type the peer may send its Opus in.
    let redundancyPayloadType: UInt8?
    var ssrc: UInt32?
    /// Whether a packet was accepted (``PeerConnectionEvent/firstMediaPacket(_:)`` goes out once).
    var receivedAny = false

    init(kind: MediaKind, payloadType: UInt8, ssrc: UInt32?, redundancyPayloadType: UInt8? = nil) {
        self.kind = kind
        self.payloadType = payloadType
        self.redundancyPayloadType = redundancyPayloadType
        self.ssrc = ssrc
    }

    /// Whether a packet with this SSRC/payload type belongs here.
    func accepts(ssrc packetSSRC: UInt32, payloadType pt: UInt8) -> Bool {
        if let ssrc { return ssrc == packetSSRC }
        return pt == payloadType || (redundancyPayloadType != nil && pt == redundancyPayloadType)
    }

    /// Takes a packet it accepts; returns whether it is the first.
    mutating func accept(ssrc packetSSRC: UInt32) -> Bool {
        if ssrc == nil { ssrc = packetSSRC }
        defer { receivedAny = true }
        return !receivedAny
    }
}
