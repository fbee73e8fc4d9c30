/// One Opus packet, the whole payload of an Opus RTP packet (RFC 7587 §4.2), validated against the framing rules
/// of RFC 6716 §3.
///
/// ```
///  0 1 2 3 4 5 6 7
/// +-+-+-+-+-+-+-+-+
/// | config  |s| c |    TOC byte (RFC 6716 §3.1): configuration (mode, bandwidth, frame duration),
/// +-+-+-+-+-+-+-+-+    s = stereo, c = frame count code
/// ```
/// Code 0: one frame; code 1: two frames of equal size; code 2: two frames, the first's length coded in 1-2 bytes
/// (§3.2.1); code 3: a frame count byte `|v|p|M|` (VBR, padding, 1-48 frames), optional padding length bytes and,
/// when VBR, M-1 frame lengths (§3.2.5). Parsing checks requirements R1-R7 of §3.4 (frame lengths at most 1275
/// bytes, at most 120 ms of audio per packet, lengths that fit the packet) and reads no byte outside `bytes`.
/// Nothing is allocated. A plain value, usable from any thread.
public struct OpusPacket: Hashable, Sendable {
    /// Largest frame in bytes (RFC 6716 §3.4 R2).
    public static let maximumFrameLength = 1275
    /// Largest duration of one packet: 120 ms at 48 kHz (§3.4 R5).
    public static let maximumSamples = 5760

    /// The coding mode of a configuration (§3.1, Table 2).
    public enum Mode: Hashable, Sendable { case silk, hybrid, celt }

    /// The audio bandwidth of a configuration (§2, Table 1).
    public enum Bandwidth: Hashable, Sendable { case narrowband, mediumband, wideband, superWideband, fullband }

    /// TOC configuration number, 0-31.
    public let configuration: UInt8
    /// s: the packet is coded stereo.
    public let isStereo: Bool
    /// c: the frame count code, 0-3.
    public let code: UInt8
    /// Frames in the packet (1-48).
    public let frameCount: Int
    /// Duration of each frame in samples at 48 kHz (120 for 2.5 ms ... 2880 for 60 ms).
    public let samplesPerFrame: Int
    /// Where the first frame's compressed data starts in the packet, and its length (0: DTX).
    public let firstFrameOffset: Int
    public let firstFrameLength: Int

    /// Duration of the whole packet in samples at 48 kHz (the RTP timestamp increment, RFC 7587 §4.1).
    public var sampleCount: Int { frameCount * samplesPerFrame }

    public var mode: Mode { configuration < 12 ? .silk : configuration < 16 ? .hybrid : .celt }

    public var bandwidth: Bandwidth {
        switch configuration {
        case 0...3, 16...19: .narrowband
        case 4...7: .mediumband
        case 8...11, 20...23: .wideband
        case 12...13, 24...27: .superWideband
        default: .fullband
        }
    }

    /// Samples at 48 kHz of one frame of `configuration` (§3.1, Table 2).
    public static func samplesPerFrame(configuration: UInt8) -> Int {
        let index = Int(configuration & 0x03)
        switch configuration & 0x1F {
        case 0...11: return [480, 960, 1920, 2880][index]  // SILK: 10, 20, 40, 60 ms
        case 12...15: return [480, 960][index & 1]  // Hybrid: 10, 20 ms
        default: return [120, 240, 480, 960][index]  // CELT: 2.5, 5, 10, 20 ms
        }
    }

    /// Parses and validates the Opus packet `bytes`.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        try require(.opusPacket, 1, bytes.count)  // R1
        let toc = bytes[0]
        configuration = toc >> 3
        isStereo = toc & 0x04 != 0
        code = toc & 0x03
        samplesPerFrame = Self.samplesPerFrame(configuration: configuration)
        let n = bytes.count - 1
        switch code {
        case 0:  // R2
            frameCount = 1
            try Self.check(frameLength: n)
            (firstFrameOffset, firstFrameLength) = (1, n)
        case 1:  // R3
            frameCount = 2
            guard n % 2 == 0 else { throw .invalidField(.opusPacket, field: "code 1 odd payload length", value: n) }
            try Self.check(frameLength: n / 2)
            (firstFrameOffset, firstFrameLength) = (1, n / 2)
        case 2:  // R4
            frameCount = 2
            let (first, used) = try Self.frameLength(bytes, at: 1)
            try require(.opusPacket, 1 + used + first, bytes.count)
            try Self.check(frameLength: first)
            try Self.check(frameLength: bytes.count - 1 - used - first)
            (firstFrameOffset, firstFrameLength) = (1 + used, first)
        default:  // code 3: R5-R7
            try require(.opusPacket, 2, bytes.count)
            let countByte = bytes[1]
            let vbr = countByte & 0x80 != 0, padded = countByte & 0x40 != 0
            let m = Int(countByte & 0x3F)
            guard m >= 1, m * samplesPerFrame <= Self.maximumSamples else {
                throw .invalidField(.opusPacket, field: "code 3 frame count", value: m)
            }
            frameCount = m
            var offset = 2
            var padding = 0
            if padded {
                // §3.2.5: each 255 adds 254 bytes and another length byte follows.
                while true {
                    try require(.opusPacket, offset + 1, bytes.count)
                    let byte = Int(bytes[offset])
                    offset += 1
                    padding += byte == 255 ? 254 : byte
                    if byte != 255 { break }
                }
            }
            var remaining = bytes.count - offset - padding
            guard remaining >= 0 else {
                throw .truncated(.opusPacket, needed: offset + padding, available: bytes.count)
            }
            if vbr {
                var firstLength: Int?
                for _ in 0 ..< m - 1 {
                    let (length, used) = try Self.frameLength(bytes, at: offset)
                    if firstLength == nil { firstLength = length }
                    offset += used
                    remaining -= used + length
                    guard remaining >= 0 else {
                        throw .truncated(.opusPacket, needed: bytes.count - remaining, available: bytes.count)
                    }
                    try Self.check(frameLength: length)
                }
                try Self.check(frameLength: remaining)  // the last frame takes the rest (R7)
                (firstFrameOffset, firstFrameLength) = (offset, firstLength ?? remaining)
            } else {
                guard remaining % m == 0 else {
                    throw .invalidField(.opusPacket, field: "code 3 CBR length not a multiple of M", value: remaining)
                }
                try Self.check(frameLength: remaining / m)  // R6
                (firstFrameOffset, firstFrameLength) = (offset, remaining / m)
            }
        }
    }

    /// Whether the packet `bytes` carries SILK low-bitrate redundancy (LBRR, RFC 6716 §4.2.4) for the packet
    /// before it: Opus in-band FEC, which recovers that packet when it is lost. SILK and hybrid modes only. The
    /// LBRR flag of each channel follows its per-frame VAD flags at the start of the first frame's range-coded
    /// data, one bit each with probability one half, so they are the first bits of its first byte (§4.2.3; what
    /// libopus 1.5's `opus_packet_has_lbrr` reads). False for a packet that does not parse.
    public static func hasRedundancy(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let packet = try? OpusPacket(parsing: bytes), packet.mode != .celt, packet.firstFrameLength > 0
        else { return false }
        let silkFrames = max(1, packet.samplesPerFrame / 960)  // 20 ms SILK frames per Opus frame
        let first = bytes[packet.firstFrameOffset]
        let mid = (first >> (7 - silkFrames)) & 1 != 0
        let side = packet.isStereo && (first >> (6 - 2 * silkFrames)) & 1 != 0
        return mid || side
    }

    /// A frame length coded in one or two bytes at `offset` (§3.2.1): 0-251 as is; 252-255 as `b0 + 4 × b1`.
    private static func frameLength(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(RTPError) -> (Int, Int) {
        try require(.opusPacket, offset + 1, bytes.count)
        let b0 = Int(bytes[offset])
        if b0 < 252 { return (b0, 1) }
        try require(.opusPacket, offset + 2, bytes.count)
        return (b0 + 4 * Int(bytes[offset + 1]), 2)
    }

    private static func check(frameLength: Int) throws(RTPError) {
        guard frameLength <= maximumFrameLength else {
            throw .invalidField(.opusPacket, field: "frame length", value: frameLength)
        }
    }
}
