/// A picture loss indication, PLI (RFC 4585 §6.3.1): "send me a key frame", no FCI.
///
/// ```
/// |V=2|P|  FMT=1  |   PT=PSFB=206 |          length=2             |
/// |                  SSRC of packet sender                        |
/// |                  SSRC of media source                         |
/// ```
public struct RTCPPictureLossIndication: RTCPPacketProtocol {
    public static let format: UInt8 = 1

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32

    public init(senderSSRC: UInt32, mediaSSRC: UInt32) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        let fb = try RTCPFeedbackHeader(parsing: bytes, type: RTCPPacketType.payloadFeedback, format: Self.format)
        self.init(senderSSRC: fb.senderSSRC, mediaSSRC: fb.mediaSSRC)
    }

    public var serializedLength: Int { RTCPFeedbackHeader.length }

    @discardableResult
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        try RTCPFeedbackHeader.write(
            type: RTCPPacketType.payloadFeedback, format: Self.format, senderSSRC: senderSSRC, mediaSSRC: mediaSSRC,
            length: serializedLength, into: buffer)
        return serializedLength
    }
}
