/// A receiver report, RR (RFC 3550 §6.4.2): the reporter's SSRC and up to 31 reception report blocks.
///
/// ```
/// |V=2|P|    RC   |   PT=RR=201   |             length            |
/// |                     SSRC of packet sender                     |
/// |                 report blocks (RC × 24 bytes)                 |
/// ```
/// Profile-specific extensions after the report blocks are ignored when parsing.
public struct RTCPReceiverReport: RTCPPacketProtocol {
    public var ssrc: UInt32
    public var reports: [RTCPReportBlock]

    public init(ssrc: UInt32, reports: [RTCPReportBlock] = []) {
        self.ssrc = ssrc
        self.reports = reports
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        let packet = try RTCPPacketBytes(parsing: bytes, type: RTCPPacketType.receiverReport)
        let body = packet.body
        try require(.rtcpPacket, 4, body.count)
        let count = Int(packet.header.count)
        guard 4 + count * RTCPReportBlock.length <= body.count else {
            throw .countMismatch(.reportBlock, count: count, length: body.count)
        }
        self.init(ssrc: body.u32(0), reports: try RTCPReportBlock.parseList(body, at: 4, count: count))
    }

    public var serializedLength: Int { RTCPHeader.length + 4 + reports.count * RTCPReportBlock.length }

    @discardableResult
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        guard reports.count < 32 else { throw .valueOutOfRange(field: "report count", value: reports.count) }
        let length = serializedLength
        try RTCPHeader(count: UInt8(reports.count), packetType: RTCPPacketType.receiverReport, packetLength: length)
            .write(into: buffer)
        buffer.put32(ssrc, at: 4)
        for (i, block) in reports.enumerated() { block.write(into: buffer, at: 8 + i * RTCPReportBlock.length) }
        return length
    }
}
