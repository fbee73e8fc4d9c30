/// The part every RFC 4585 feedback message shares (RFC 4585 §6.1): the common header with FMT in the count field,
/// the packet sender's SSRC and the media source's SSRC, followed by feedback control information (FCI).
struct RTCPFeedbackHeader {
    static let length = RTCPHeader.length + 8

    let senderSSRC: UInt32
    let mediaSSRC: UInt32
    /// The FCI, padding excluded.
    let fci: UnsafeRawBufferPointer

    init(parsing bytes: UnsafeRawBufferPointer, type: UInt8, format: UInt8) throws(RTPError) {
        let packet = try RTCPPacketBytes(parsing: bytes, type: type, format: format)
        try require(.feedback, 8, packet.body.count)
        senderSSRC = packet.body.u32(0)
        mediaSSRC = packet.body.u32(4)
        fci = packet.body.slice(8, packet.body.count - 8)
    }

    /// Writes the common part of a feedback packet of `length` bytes.
    static func write(
        type: UInt8, format: UInt8, senderSSRC: UInt32, mediaSSRC: UInt32, length: Int,
        into buffer: UnsafeMutableRawBufferPointer
    ) throws(RTPError) {
        try RTCPHeader(count: format, packetType: type, packetLength: length).write(into: buffer)
        buffer.put32(senderSSRC, at: 4)
        buffer.put32(mediaSSRC, at: 8)
    }
}
