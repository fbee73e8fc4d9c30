/// A goodbye packet, BYE (RFC 3550 §6.6): the listed sources are leaving, optionally with a reason.
///
/// ```
/// |V=2|P|    SC   |   PT=BYE=203  |             length            |
/// |                           SSRC/CSRC × SC                      |
/// |     length    |               reason for leaving ... (opt)    |
/// ```
public struct RTCPGoodbye: RTCPPacketProtocol {
    public var sources: [UInt32]
    /// UTF-8 reason, at most 255 bytes.
    public var reason: [UInt8]?

    public init(sources: [UInt32], reason: String? = nil) {
        self.sources = sources
        self.reason = reason.map { Array($0.utf8) }
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        let packet = try RTCPPacketBytes(parsing: bytes, type: RTCPPacketType.goodbye)
        let body = packet.body
        let count = Int(packet.header.count)
        guard count * 4 <= body.count else { throw .countMismatch(.goodbye, count: count, length: body.count) }
        sources = (0 ..< count).map { body.u32($0 * 4) }
        let offset = count * 4
        if offset < body.count {
            let length = Int(body[offset])
            try require(.goodbye, offset + 1 + length, body.count)
            reason = Array(body.slice(offset + 1, length))
        } else {
            reason = nil
        }
    }

    /// The reason decoded as UTF-8 (invalid sequences replaced).
    public var reasonText: String? { reason.map { String(decoding: $0, as: UTF8.self) } }

    public var serializedLength: Int {
        RTCPHeader.length + 4 * sources.count + (reason.map { ($0.count + 1 + 3) & ~3 } ?? 0)
    }

    @discardableResult
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        guard sources.count < 32 else { throw .valueOutOfRange(field: "BYE source count", value: sources.count) }
        if let reason, reason.count > 255 { throw .valueOutOfRange(field: "BYE reason length", value: reason.count) }
        let length = serializedLength
        try RTCPHeader(count: UInt8(sources.count), packetType: RTCPPacketType.goodbye, packetLength: length)
            .write(into: buffer)
        var offset = RTCPHeader.length
        for source in sources {
            buffer.put32(source, at: offset)
            offset += 4
        }
        if let reason {
            buffer.put8(UInt8(reason.count), at: offset)
            reason.withUnsafeBytes { buffer.put($0, at: offset + 1) }
            offset += 1 + reason.count
            buffer.zero(offset, length - offset)
        }
        return length
    }
}
