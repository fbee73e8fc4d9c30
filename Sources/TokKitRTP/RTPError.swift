/// Why TokKitRTP rejected bytes it was asked to parse, or a value it was asked to serialize.
///
/// Every parser in this module validates lengths before reading, so hostile input ends in one of these cases and
/// never in a trap or an out-of-bounds read. Values are plain data and safe to pass between threads.
public enum RTPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The structure that was being read or written when the error occurred.
    public enum Element: String, Hashable, Sendable {
        case rtpHeader = "RTP header"
        case csrcList = "CSRC list"
        case headerExtension = "header extension"
        case payload
        case padding
        case rtcpHeader = "RTCP header"
        case rtcpPacket = "RTCP packet"
        case reportBlock = "report block"
        case sdesChunk = "SDES chunk"
        case sdesItem = "SDES item"
        case goodbye = "BYE"
        case feedback = "feedback packet"
        case feedbackControlInformation = "feedback control information"
        case packetStatusChunk = "packet status chunk"
        case receiveDelta = "receive delta"
        case vp8PayloadDescriptor = "VP8 payload descriptor"
        case vp8PayloadHeader = "VP8 payload header"
        case vp8Frame = "VP8 frame"
        case opusPacket = "Opus packet"
        case redundantAudio = "RED payload"
    }

    /// The version field is not 2 (RFC 3550 §5.1, §6.4.1).
    case unsupportedVersion(UInt8)
    /// The bytes end before `element` does.
    case truncated(Element, needed: Int, available: Int)
    /// The padding count (last octet) is zero or larger than the space left after the header.
    case invalidPadding(count: Int, available: Int)
    /// A header extension element (RFC 8285 §4.2, §4.3) runs past the end of the extension block.
    case extensionElementOverrun(id: UInt8, length: Int, remaining: Int)
    /// An RTCP packet's length field does not fit the bytes received (RFC 3550 §6.4.1).
    case invalidRTCPLength(declared: Int, available: Int)
    /// The packet is not of the RTCP type (or feedback format) the parser expects.
    case unexpectedPacketType(expected: UInt8, actual: UInt8)
    /// A count field (reception reports, SSRCs, chunks) disagrees with the packet length.
    case countMismatch(Element, count: Int, length: Int)
    /// A value cannot be represented on the wire (e.g. more than 15 CSRCs, a payload type above 127).
    case valueOutOfRange(field: String, value: Int)
    /// The destination buffer holds fewer bytes than the serialized packet needs.
    case bufferTooSmall(needed: Int, available: Int)
    /// An RFC 4585 application-layer feedback packet carries an identifier this module does not decode.
    case unknownApplicationFeedback(identifier: UInt32)
    /// A received field holds a value its specification forbids (e.g. an Opus frame count of 0, a VP8 key frame
    /// without its start code).
    case invalidField(Element, field: String, value: Int)

    public var description: String {
        switch self {
        case let .unsupportedVersion(v): "unsupported RTP/RTCP version \(v) (expected 2)"
        case let .truncated(e, n, a): "\(e.rawValue) truncated: needs \(n) bytes, \(a) available"
        case let .invalidPadding(c, a): "invalid padding count \(c) with \(a) bytes available"
        case let .extensionElementOverrun(id, l, r): "extension element id \(id) of \(l) bytes overruns (\(r) left)"
        case let .invalidRTCPLength(d, a): "RTCP length field says \(d) bytes, \(a) available"
        case let .unexpectedPacketType(e, a): "expected RTCP packet type/format \(e), got \(a)"
        case let .countMismatch(e, c, l): "\(e.rawValue) count \(c) does not fit a length of \(l) bytes"
        case let .valueOutOfRange(f, v): "\(f) value \(v) cannot be encoded"
        case let .bufferTooSmall(n, a): "buffer of \(a) bytes is too small, \(n) needed"
        case let .unknownApplicationFeedback(i): "unknown application feedback identifier 0x\(String(i, radix: 16))"
        case let .invalidField(e, f, v): "\(e.rawValue): invalid \(f) \(v)"
        }
    }
}
