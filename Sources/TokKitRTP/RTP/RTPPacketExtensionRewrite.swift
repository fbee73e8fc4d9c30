extension RTPPacketView {
    /// Overwrites, in a serialized RTP packet, the 2-byte value of the extension element `id` (RFC 8285 §4.2
    /// one-byte or §4.3 two-byte form) with `value` (big-endian), e.g. the transport-wide sequence number
    /// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2) of a packet about to be sent or resent. Nothing
    /// moves: returns false, changing nothing, when the packet has no such element of exactly 2 bytes. Throws
    /// what ``init(parsing:)`` throws for a malformed packet. Allocates nothing.
    public static func setExtension(id: UInt8, _ value: UInt16, in packet: UnsafeMutableRawBufferPointer)
        throws(RTPError) -> Bool {
        let view = try RTPPacketView(parsing: UnsafeRawBufferPointer(packet))
        guard let element = view.extensions.value(id: id), element.count == 2,
              let base = packet.baseAddress, let start = element.baseAddress
        else { return false }
        packet.put16(value, at: start - UnsafeRawPointer(base))
        return true
    }
}
