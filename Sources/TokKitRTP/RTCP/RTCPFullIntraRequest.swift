/// A full intra request, FIR (RFC 5104 §4.3.1): each listed media sender should send a decoder refresh point.
///
/// ```
/// |V=2|P|  FMT=4  |   PT=PSFB=206 |          length               |
/// |                  SSRC of packet sender                        |
/// |             SSRC of media source (unused, 0)                  |
/// |                              SSRC                             |  × n
/// | Seq nr.       |    Reserved                                   |
/// ```
/// The command sequence number increases by one per new request, so a retransmitted FIR is recognized as such.
public struct RTCPFullIntraRequest: RTCPPacketProtocol {
    public static let format: UInt8 = 4

    /// One FCI entry (RFC 5104 §4.3.1.1): the media sender asked for a key frame, and the request's sequence number.
    public struct Entry: Hashable, Sendable {
        public var ssrc: UInt32
        public var sequenceNumber: UInt8

        public init(ssrc: UInt32, sequenceNumber: UInt8) {
            self.ssrc = ssrc
            self.sequenceNumber = sequenceNumber
        }
    }

    public var senderSSRC: UInt32
    public var entries: [Entry]

    public init(senderSSRC: UInt32, entries: [Entry]) {
        self.senderSSRC = senderSSRC
        self.entries = entries
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        let fb = try RTCPFeedbackHeader(parsing: bytes, type: RTCPPacketType.payloadFeedback, format: Self.format)
        let count = fb.fci.count / 8
        guard count * 8 == fb.fci.count, count > 0 else {
            throw .countMismatch(.feedbackControlInformation, count: count, length: fb.fci.count)
        }
        self.init(
            senderSSRC: fb.senderSSRC,
            entries: (0 ..< count).map { Entry(ssrc: fb.fci.u32($0 * 8), sequenceNumber: fb.fci[$0 * 8 + 4]) })
    }

    public var serializedLength: Int { RTCPFeedbackHeader.length + 8 * entries.count }

    @discardableResult
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        guard !entries.isEmpty else { throw .valueOutOfRange(field: "FIR entry count", value: 0) }
        let length = serializedLength
        try RTCPFeedbackHeader.write(
            type: RTCPPacketType.payloadFeedback, format: Self.format, senderSSRC: senderSSRC, mediaSSRC: 0,
            length: length, into: buffer)
        for (i, entry) in entries.enumerated() {
            let offset = RTCPFeedbackHeader.length + 8 * i
            buffer.put32(entry.ssrc, at: offset)
            buffer.put32(UInt32(entry.sequenceNumber) << 24, at: offset + 4)
        }
        return length
    }
}
