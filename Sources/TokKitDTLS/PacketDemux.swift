/// What a datagram arriving on the ICE transport carries, by its first bytes (RFC 7983 §7, RFC 5761 §4).
enum PacketClass {
    case dtls
    case rtp
    case rtcp
    case other

    @inline(__always)
    init(_ datagram: UnsafeRawBufferPointer) {
        guard datagram.count >= 2 else { self = .other; return }
        switch datagram[0] {
        case 20...63: self = .dtls
        case 128...191:
            // RTCP packet types 192–223 (masking the marker bit, so RTP payload types 64–95 cannot be used).
            let pt = datagram[1] & 0x7F
            self = (64...95).contains(pt) ? .rtcp : .rtp
        default: self = .other
        }
    }
}

/// Whether a media packet handed to the receive handler is RTP or RTCP.
///
/// Value type, usable from any thread.
public enum MediaPacketKind: Sendable, Hashable {
    /// An RTP packet (decrypted).
    case rtp
    /// An RTCP compound packet (decrypted).
    case rtcp
}
