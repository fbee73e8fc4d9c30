/// What a datagram on a BUNDLEd, rtcp-mux transport carries, decided from its first bytes (RFC 7983 §7, RFC 5764 §5.1.2).
///
/// The first byte picks the protocol: 0-3 STUN, 16-19 ZRTP, 20-63 DTLS, 64-79 TURN channel data, 128-191 RTP or
/// RTCP. Between RTP and RTCP, RFC 5761 §4 decides on the second byte: RTCP packet types 192-223 are RTP payload
/// types 64-95 with the marker bit set, which RTP on a muxed transport must not use. Classification reads at most
/// two bytes, allocates nothing and never throws; it does not validate the packet itself.
public enum MultiplexedPacketKind: Hashable, Sendable {
    case stun
    case zrtp
    case dtls
    case turnChannel
    case rtp
    case rtcp
    /// Empty, or a first byte no protocol claims (RFC 7983 says: drop it).
    case unknown

    /// Classifies `datagram`.
    public init(classifying datagram: UnsafeRawBufferPointer) {
        guard let first = datagram.first else {
            self = .unknown
            return
        }
        switch first {
        case 0...3: self = .stun
        case 16...19: self = .zrtp
        case 20...63: self = .dtls
        case 64...79: self = .turnChannel
        case 128...191:
            guard datagram.count >= 2 else {
                self = .unknown
                return
            }
            self = (192...223).contains(datagram[1]) ? .rtcp : .rtp
        default: self = .unknown
        }
    }

    /// Classifies a byte array (convenience for tests and control paths).
    public init(classifying datagram: [UInt8]) {
        self = datagram.withUnsafeBytes { MultiplexedPacketKind(classifying: $0) }
    }
}
