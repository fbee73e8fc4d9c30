/// A compound RTCP packet: the RTCP packets of one datagram, back to back (RFC 3550 §6.1, validity checks of A.2).
///
/// Parsing requires version 2 and lengths that add up to the datagram exactly. A regular compound packet starts with
/// an SR or RR; reduced-size RTCP (RFC 5506 §3) is tolerated, so a datagram holding only feedback (a lone PLI or NACK)
/// parses too and ``isReducedSize`` tells which it was. At most ``maximumPacketCount`` packets are decoded.
/// Decoding allocates for the variable-length lists of the packets; ``forEachPacket(in:_:)`` walks the same chain
/// without decoding or allocating, for the receive path.
public struct RTCPCompoundPacket: Hashable, Sendable {
    /// Cap on the packets one datagram may hold (a 1500-byte datagram holds at most 125 minimal ones).
    public static let maximumPacketCount = 256

    public var packets: [RTCPPacket]

    public init(packets: [RTCPPacket]) { self.packets = packets }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        var packets: [RTCPPacket] = []
        try Self.forEachPacket(in: bytes) { (_, packet) throws(RTPError) in
            packets.append(try RTCPPacket(parsing: packet))
        }
        self.packets = packets
    }

    /// Calls `body` with the header and the bytes (header and padding included) of each packet of the compound
    /// packet `bytes`, in order, once the whole chain has passed the checks of ``init(parsing:)``: version 2,
    /// lengths adding up to the datagram exactly, at most ``maximumPacketCount`` packets (RFC 3550 A.2). Nothing
    /// is decoded and nothing is allocated: the receive path decodes what it needs from each packet. An error
    /// thrown by `body` ends the walk.
    public static func forEachPacket(in bytes: UnsafeRawBufferPointer,
                                     _ body: (RTCPHeader, UnsafeRawBufferPointer) throws(RTPError) -> Void)
        throws(RTPError) {
        try require(.rtcpHeader, RTCPHeader.length, bytes.count)
        var count = 0, offset = 0
        while offset < bytes.count {
            guard count < Self.maximumPacketCount else {
                throw .countMismatch(.rtcpPacket, count: count + 1, length: bytes.count)
            }
            offset += try RTCPHeader(parsing: bytes.slice(offset, bytes.count - offset)).packetLength
            count += 1
        }
        offset = 0
        while offset < bytes.count {
            let rest = bytes.slice(offset, bytes.count - offset)
            let header = try RTCPHeader(parsing: rest)
            try body(header, rest.slice(0, header.packetLength))
            offset += header.packetLength
        }
    }

    public init(parsing bytes: [UInt8]) throws(RTPError) {
        self = try withBytes(of: bytes) { (raw) throws(RTPError) -> Self in try Self(parsing: raw) }
    }

    /// True when the first packet is not an SR or RR (RFC 5506 reduced-size RTCP).
    public var isReducedSize: Bool { !(packets.first?.isReport ?? false) }

    public var serializedLength: Int { packets.reduce(0) { $0 + $1.packet.serializedLength } }

    /// Writes every packet in order to the start of `buffer`; returns the bytes written.
    @discardableResult
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        try requireSpace(serializedLength, buffer)
        var offset = 0
        for packet in packets {
            offset += try packet.packet.write(into: UnsafeMutableRawBufferPointer(rebasing: buffer[offset...]))
        }
        return offset
    }

    /// Serializes into a new array.
    public func serialized() throws(RTPError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: serializedLength)
        let n = try withMutableBytes(of: &out) { (raw) throws(RTPError) -> Int in try write(into: raw) }
        return Array(out.prefix(n))
    }
}
