/// The common header of every RTCP packet (RFC 3550 §6.4.1).
///
/// ```
///  0                   1                   2                   3
/// |V=2|P|    RC   |      PT       |             length            |
/// ```
/// `count` is the reception report / source count, or the feedback message type (FMT) for RFC 4585 packets.
/// `length` is the packet length in 32-bit words minus one, header included.
public struct RTCPHeader: Hashable, Sendable {
    public static let length = 4

    public var hasPadding: Bool
    /// RC, SC or FMT, 0-31.
    public var count: UInt8
    public var packetType: UInt8
    /// Whole packet length in bytes (header and padding included), a multiple of four.
    public var packetLength: Int

    public init(hasPadding: Bool = false, count: UInt8, packetType: UInt8, packetLength: Int) {
        self.hasPadding = hasPadding
        self.count = count
        self.packetType = packetType
        self.packetLength = packetLength
    }

    /// Reads the header at the start of `bytes` and checks that the packet it announces fits.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        try require(.rtcpHeader, Self.length, bytes.count)
        let first = bytes[0]
        guard first >> 6 == 2 else { throw .unsupportedVersion(first >> 6) }
        let length = (Int(bytes.u16(2)) + 1) * 4
        guard length <= bytes.count else { throw .invalidRTCPLength(declared: length, available: bytes.count) }
        self.init(hasPadding: first & 0x20 != 0, count: first & 0x1F, packetType: bytes[1], packetLength: length)
    }

    /// Writes the header to the start of `buffer` (the caller checked its size).
    func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) {
        guard count < 32 else { throw .valueOutOfRange(field: "RTCP count", value: Int(count)) }
        guard packetLength % 4 == 0, (4...(65536 * 4)).contains(packetLength) else {
            throw .valueOutOfRange(field: "RTCP packet length", value: packetLength)
        }
        try requireSpace(packetLength, buffer)
        buffer.put8(2 << 6 | (hasPadding ? 0x20 : 0) | count, at: 0)
        buffer.put8(packetType, at: 1)
        buffer.put16(UInt16(packetLength / 4 - 1), at: 2)
    }
}

/// One RTCP packet's bytes with its padding removed: what the typed parsers read.
struct RTCPPacketBytes {
    let header: RTCPHeader
    /// Bytes after the 4-byte header, padding excluded.
    let body: UnsafeRawBufferPointer

    /// Splits off the first packet of `bytes` (the rest of a compound packet stays untouched).
    init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        let header = try RTCPHeader(parsing: bytes)
        var end = header.packetLength
        if header.hasPadding {
            let padding = Int(bytes[end - 1])
            guard padding > 0, padding <= end - RTCPHeader.length else {
                throw .invalidPadding(count: padding, available: end - RTCPHeader.length)
            }
            end -= padding
        }
        self.header = header
        self.body = bytes.slice(RTCPHeader.length, end - RTCPHeader.length)
    }

    /// Parses `bytes` and checks the packet type (and feedback format when given).
    init(parsing bytes: UnsafeRawBufferPointer, type: UInt8, format: UInt8? = nil) throws(RTPError) {
        try self.init(parsing: bytes)
        guard header.packetType == type else { throw .unexpectedPacketType(expected: type, actual: header.packetType) }
        if let format, header.count != format { throw .unexpectedPacketType(expected: format, actual: header.count) }
    }
}

/// The contract every typed RTCP packet of this module follows.
///
/// Parsing reads exactly one packet from the start of the buffer (a compound packet's first; use
/// ``RTCPCompoundPacket`` for the whole datagram); writing fills the start of a caller-provided buffer.
public protocol RTCPPacketProtocol: Hashable, Sendable {
    /// Parses the packet at the start of `bytes`.
    init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError)
    /// Bytes ``write(into:)`` produces, header included.
    var serializedLength: Int { get }
    /// Writes the packet to the start of `buffer`; returns the bytes written.
    @discardableResult func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int
}

extension RTCPPacketProtocol {
    /// Parses a packet from a byte array.
    public init(parsing bytes: [UInt8]) throws(RTPError) {
        self = try withBytes(of: bytes) { (raw) throws(RTPError) -> Self in try Self(parsing: raw) }
    }

    /// Serializes into a new array (for tests and control paths; the data plane writes into its own buffers).
    public func serialized() throws(RTPError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: serializedLength)
        let n = try withMutableBytes(of: &out) { (raw) throws(RTPError) -> Int in try write(into: raw) }
        return Array(out.prefix(n))
    }
}
