/// A sender report, SR (RFC 3550 §6.4.1): the sender's clocks and counters plus up to 31 reception reports.
///
/// ```
/// |V=2|P|    RC   |   PT=SR=200   |             length            |
/// |                         SSRC of sender                        |
/// |              NTP timestamp, most significant word             |
/// |             NTP timestamp, least significant word             |
/// |                         RTP timestamp                         |
/// |                     sender's packet count                     |
/// |                      sender's octet count                     |
/// |                 report blocks (RC × 24 bytes)                 |
/// ```
/// Profile-specific extensions after the report blocks are ignored when parsing.
public struct RTCPSenderReport: RTCPPacketProtocol {
    public var ssrc: UInt32
    /// 64-bit NTP timestamp (RFC 3550 §4) of the moment the RTP timestamp below corresponds to.
    public var ntpTimestamp: NTPTimestamp
    public var rtpTimestamp: UInt32
    public var packetCount: UInt32
    public var octetCount: UInt32
    public var reports: [RTCPReportBlock]

    public init(
        ssrc: UInt32, ntpTimestamp: NTPTimestamp, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
        reports: [RTCPReportBlock] = []
    ) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reports = reports
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        let packet = try RTCPPacketBytes(parsing: bytes, type: RTCPPacketType.senderReport)
        let body = packet.body
        try require(.rtcpPacket, 24, body.count)
        let count = Int(packet.header.count)
        guard 24 + count * RTCPReportBlock.length <= body.count else {
            throw .countMismatch(.reportBlock, count: count, length: body.count)
        }
        self.init(
            ssrc: body.u32(0), ntpTimestamp: NTPTimestamp(rawValue: body.u64(4)), rtpTimestamp: body.u32(12),
            packetCount: body.u32(16), octetCount: body.u32(20),
            reports: try RTCPReportBlock.parseList(body, at: 24, count: count))
    }

    public var serializedLength: Int { RTCPHeader.length + 24 + reports.count * RTCPReportBlock.length }

    @discardableResult
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        guard reports.count < 32 else { throw .valueOutOfRange(field: "report count", value: reports.count) }
        let length = serializedLength
        try RTCPHeader(count: UInt8(reports.count), packetType: RTCPPacketType.senderReport, packetLength: length)
            .write(into: buffer)
        buffer.put32(ssrc, at: 4)
        buffer.put64(ntpTimestamp.rawValue, at: 8)
        buffer.put32(rtpTimestamp, at: 16)
        buffer.put32(packetCount, at: 20)
        buffer.put32(octetCount, at: 24)
        for (i, block) in reports.enumerated() { block.write(into: buffer, at: 28 + i * RTCPReportBlock.length) }
        return length
    }
}
