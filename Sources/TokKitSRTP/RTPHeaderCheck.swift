/// Bounds checks run before handing a packet to libsrtp, so malformed input gets a typed error and libsrtp
/// never reads past `length`.
enum RTPHeaderCheck {
    /// Validates an RTP header (RFC 3550 §5.1 and §5.3.1) in the first `length` bytes.
    @inline(__always)
    static func rtp(_ p: UnsafeMutableRawBufferPointer, length: Int) -> Bool {
        guard length >= 12, length <= p.count else { return false }
        let b0 = p[0]
        guard b0 >> 6 == 2 else { return false }
        var header = 12 + 4 * Int(b0 & 0x0F)
        guard length >= header else { return false }
        if b0 & 0x10 != 0 {
            guard length >= header + 4 else { return false }
            let words = Int(p[header + 2]) << 8 | Int(p[header + 3])
            header += 4 + 4 * words
            guard length >= header else { return false }
        }
        return true
    }

    /// Validates an RTCP common header (RFC 3550 §6.4.1) in the first `length` bytes.
    @inline(__always)
    static func rtcp(_ p: UnsafeMutableRawBufferPointer, length: Int) -> Bool {
        guard length >= 8, length <= p.count else { return false }
        return p[0] >> 6 == 2
    }
}
