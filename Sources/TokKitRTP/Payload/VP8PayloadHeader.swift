/// The VP8 payload header at the start of a frame's first partition (RFC 7741 §4.3), plus the key frame's
/// dimensions from the 7 bytes that follow it in a key frame (RFC 6386 §9.1).
///
/// ```
///  0 1 2 3 4 5 6 7
/// +-+-+-+-+-+-+-+-+
/// |Size0|H| VER |P|      P: inverse key frame flag (0 = key frame), VER: version,
/// +-+-+-+-+-+-+-+-+      H: show_frame, Size: first partition size
/// |     Size1     |         = Size0 + 8 × Size1 + 2048 × Size2
/// +-+-+-+-+-+-+-+-+
/// |     Size2     |
/// +-+-+-+-+-+-+-+-+
/// key frames only:  9d 01 2a | width (14 bits) + scale (2), little-endian | height (14) + scale (2)
/// ```
/// It is present only in a payload whose descriptor ``VP8PayloadDescriptor/startsFrame``. Parsing allocates
/// nothing; a plain value, usable from any thread.
public struct VP8PayloadHeader: Hashable, Sendable {
    /// Bytes of the payload header proper.
    public static let length = 3
    /// Bytes of the payload header plus the key frame start code and dimensions (RFC 6386 §9.1).
    public static let keyFrameLength = 10

    /// The frame is a key frame (P = 0).
    public var isKeyFrame: Bool
    /// VER: the VP8 version (profile), 0-3 in practice (3 bits).
    public var version: UInt8
    /// H: the decoder shows the frame.
    public var showFrame: Bool
    /// Size of the first partition in bytes (19 bits).
    public var firstPartitionSize: Int
    /// Key frame width in pixels (14 bits), when the payload held the key frame header.
    public var width: Int?
    /// Key frame height in pixels (14 bits), when the payload held the key frame header.
    public var height: Int?
    /// Horizontal and vertical upscaling (2 bits each), when the payload held the key frame header.
    public var horizontalScale: UInt8?
    public var verticalScale: UInt8?

    /// Parses the header at the start of the VP8 payload (after the descriptor). A key frame whose payload holds
    /// the full 10-byte key frame header must carry the start code `9d 01 2a`; a shorter key frame payload leaves
    /// the dimensions `nil`.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        try require(.vp8PayloadHeader, Self.length, bytes.count)
        let first = bytes[0]
        isKeyFrame = first & 0x01 == 0
        version = (first >> 1) & 0x07
        showFrame = first & 0x10 != 0
        firstPartitionSize = Int(first >> 5) + 8 * Int(bytes[1]) + 2048 * Int(bytes[2])
        guard isKeyFrame, bytes.count >= Self.keyFrameLength else { return }
        let startCode = bytes.u24(3)
        guard startCode == 0x9D012A else {
            throw .invalidField(.vp8PayloadHeader, field: "key frame start code", value: Int(startCode))
        }
        let w = UInt16(bytes[6]) | UInt16(bytes[7]) << 8, h = UInt16(bytes[8]) | UInt16(bytes[9]) << 8
        width = Int(w & 0x3FFF)
        height = Int(h & 0x3FFF)
        horizontalScale = UInt8(w >> 14)
        verticalScale = UInt8(h >> 14)
    }

    /// Whether the first byte of a frame's VP8 payload marks a key frame (P = 0), without full parsing.
    @inline(__always)
    public static func isKeyFrame(firstByte: UInt8) -> Bool { firstByte & 0x01 == 0 }
}
