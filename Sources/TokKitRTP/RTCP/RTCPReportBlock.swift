/// A reception report block, carried by sender and receiver reports (RFC 3550 §6.4.1).
///
/// ```
/// |                 SSRC_1 (SSRC of first source)                 |
/// | fraction lost |       cumulative number of packets lost       |
/// |           extended highest sequence number received           |
/// |                      interarrival jitter                      |
/// |                         last SR (LSR)                         |
/// |                   delay since last SR (DLSR)                  |
/// ```
public struct RTCPReportBlock: Hashable, Sendable {
    public static let length = 24

    public var ssrc: UInt32
    /// Fraction of packets lost since the previous report, as a fixed-point number with the binary point at the left.
    public var fractionLost: UInt8
    /// Packets lost since the beginning of reception, a signed 24-bit value (-8388608 ... 8388607).
    public var cumulativeLost: Int32
    public var extendedHighestSequenceNumber: UInt32
    /// Interarrival jitter in timestamp units (RFC 3550 §6.4.1, A.8).
    public var jitter: UInt32
    /// Middle 32 bits of the NTP timestamp of the last SR received from this source, 0 if none.
    public var lastSenderReport: UInt32
    /// Delay since that SR, in units of 1/65536 s.
    public var delaySinceLastSenderReport: UInt32

    public init(
        ssrc: UInt32, fractionLost: UInt8 = 0, cumulativeLost: Int32 = 0, extendedHighestSequenceNumber: UInt32 = 0,
        jitter: UInt32 = 0, lastSenderReport: UInt32 = 0, delaySinceLastSenderReport: UInt32 = 0
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequenceNumber = extendedHighestSequenceNumber
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    /// The range the 24-bit cumulative-lost field can carry.
    public static let cumulativeLostRange: ClosedRange<Int32> = -0x80_0000 ... 0x7F_FFFF

    /// Reads a block at `offset` (the caller checked that 24 bytes are there).
    init(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        let lost = bytes.u24(offset + 5)
        self.init(
            ssrc: bytes.u32(offset), fractionLost: bytes[offset + 4],
            cumulativeLost: Int32(bitPattern: lost << 8) >> 8,  // sign-extend 24 bits
            extendedHighestSequenceNumber: bytes.u32(offset + 8), jitter: bytes.u32(offset + 12),
            lastSenderReport: bytes.u32(offset + 16), delaySinceLastSenderReport: bytes.u32(offset + 20))
    }

    /// Writes the block at `offset` (the caller checked the space). Cumulative loss is clamped to 24 bits.
    func write(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        let lost = min(max(cumulativeLost, Self.cumulativeLostRange.lowerBound), Self.cumulativeLostRange.upperBound)
        buffer.put32(ssrc, at: offset)
        buffer.put8(fractionLost, at: offset + 4)
        buffer.put24(UInt32(bitPattern: lost) & 0xFF_FFFF, at: offset + 5)
        buffer.put32(extendedHighestSequenceNumber, at: offset + 8)
        buffer.put32(jitter, at: offset + 12)
        buffer.put32(lastSenderReport, at: offset + 16)
        buffer.put32(delaySinceLastSenderReport, at: offset + 20)
    }

    /// Reads `count` blocks starting at `offset` of `body`.
    static func parseList(_ body: UnsafeRawBufferPointer, at offset: Int, count: Int) throws(RTPError) -> [Self] {
        try require(.reportBlock, offset + count * length, body.count)
        var blocks: [Self] = []
        blocks.reserveCapacity(count)
        for i in 0 ..< count { blocks.append(Self(body, at: offset + i * length)) }
        return blocks
    }
}
