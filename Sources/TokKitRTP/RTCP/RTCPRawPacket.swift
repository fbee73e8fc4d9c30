/// An RTCP packet this module does not decode (APP, XR, other feedback formats), kept as
/// bytes so that a compound packet can be inspected and re-serialized.
public struct RTCPRawPacket: RTCPPacketProtocol {
    public var packetType: UInt8
    /// RC, SC or FMT field, 0-31.
    public var count: UInt8
    /// Bytes after the common header, padding removed.
    public var body: [UInt8]

    public init(packetType: UInt8, count: UInt8, body: [UInt8]) {
        self.packetType = packetType
        self.count = count
        self.body = body
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        let packet = try RTCPPacketBytes(parsing: bytes)
        self.init(packetType: packet.header.packetType, count: packet.header.count, body: Array(packet.body))
    }

    /// The body padded to 32 bits with RFC 3550 padding when its length is not a multiple of four.
    public var serializedLength: Int { RTCPHeader.length + (body.count + 3) & ~3 }

    @discardableResult
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        let length = serializedLength
        let padding = length - RTCPHeader.length - body.count
        try RTCPHeader(hasPadding: padding > 0, count: count, packetType: packetType, packetLength: length)
            .write(into: buffer)
        body.withUnsafeBytes { buffer.put($0, at: RTCPHeader.length) }
        if padding > 0 {
            buffer.zero(length - padding, padding - 1)
            buffer.put8(UInt8(padding), at: length - 1)
        }
        return length
    }
}
