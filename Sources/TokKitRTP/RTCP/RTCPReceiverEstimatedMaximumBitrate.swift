/// Receiver estimated maximum bitrate, REMB (draft-alvestrand-rmcat-remb-03 §2.2): an application-layer feedback
/// message (RFC 4585 §6.4, PSFB FMT 15) carrying the total bitrate the receiver estimates for the listed streams.
///
/// ```
/// |V=2|P| FMT=15  |   PT=206      |             length            |
/// |                  SSRC of packet sender                        |
/// |                  SSRC of media source (0)                     |
/// |  Unique identifier 'R' 'E' 'M' 'B'                            |
/// |  Num SSRC     | BR Exp    |  BR Mantissa                      |
/// |   SSRC feedback                                               |  × Num SSRC
/// ```
/// Bitrate = mantissa × 2^exp bits per second.
public struct RTCPReceiverEstimatedMaximumBitrate: RTCPPacketProtocol {
    public static let format: UInt8 = 15
    /// 'R' 'E' 'M' 'B'.
    public static let identifier: UInt32 = 0x5245_4D42

    public var senderSSRC: UInt32
    /// Bits per second; values above what 18 bits of mantissa carry exactly are rounded down when written.
    public var bitrate: UInt64
    public var ssrcs: [UInt32]

    public init(senderSSRC: UInt32, bitrate: UInt64, ssrcs: [UInt32]) {
        self.senderSSRC = senderSSRC
        self.bitrate = bitrate
        self.ssrcs = ssrcs
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        let fb = try RTCPFeedbackHeader(parsing: bytes, type: RTCPPacketType.payloadFeedback, format: Self.format)
        let fci = fb.fci
        try require(.feedbackControlInformation, 4, fci.count)
        guard fci.u32(0) == Self.identifier else { throw .unknownApplicationFeedback(identifier: fci.u32(0)) }
        try require(.feedbackControlInformation, 8, fci.count)
        let count = Int(fci[4])
        guard 8 + 4 * count <= fci.count else {
            throw .countMismatch(.feedbackControlInformation, count: count, length: fci.count)
        }
        let exponent = UInt64(fci[5] >> 2)
        let mantissa = UInt64(fci.u24(5) & 0x3_FFFF)
        // The exponent field reaches 63: saturate instead of shifting bits away.
        let bitrate = mantissa == 0 ? 0 : (mantissa.leadingZeroBitCount >= exponent ? mantissa << exponent : .max)
        self.init(senderSSRC: fb.senderSSRC, bitrate: bitrate, ssrcs: (0 ..< count).map { fci.u32(8 + 4 * $0) })
    }

    /// The (exponent, mantissa) pair written for ``bitrate``.
    public var encodedBitrate: (exponent: UInt8, mantissa: UInt32) {
        var exponent: UInt8 = 0
        var mantissa = bitrate
        while mantissa > 0x3_FFFF {
            mantissa >>= 1
            exponent += 1
        }
        return (exponent, UInt32(mantissa))
    }

    public var serializedLength: Int { RTCPFeedbackHeader.length + 8 + 4 * ssrcs.count }

    @discardableResult
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        guard ssrcs.count <= 255 else { throw .valueOutOfRange(field: "REMB SSRC count", value: ssrcs.count) }
        let length = serializedLength
        try RTCPFeedbackHeader.write(
            type: RTCPPacketType.payloadFeedback, format: Self.format, senderSSRC: senderSSRC, mediaSSRC: 0,
            length: length, into: buffer)
        let (exponent, mantissa) = encodedBitrate
        let offset = RTCPFeedbackHeader.length
        buffer.put32(Self.identifier, at: offset)
        buffer.put8(UInt8(ssrcs.count), at: offset + 4)
        buffer.put24(UInt32(exponent) << 18 | mantissa, at: offset + 5)
        for (i, ssrc) in ssrcs.enumerated() { buffer.put32(ssrc, at: offset + 8 + 4 * i) }
        return length
    }
}
