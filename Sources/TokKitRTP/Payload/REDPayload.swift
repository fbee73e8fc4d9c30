/// The payload of an RTP packet in the redundant audio format (RFC 2198 §3), as WebRTC uses it for Opus
/// (`a=rtpmap:N red/48000/2`, `a=fmtp:N 111/111`): block headers, then the blocks in the same order, the primary
/// (newest) last.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |1|  block PT   |  timestamp offset         |   block length    |   a redundant block's header
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |0|  block PT   |                                                   the primary block's header (last)
/// +-+-+-+-+-+-+-+-+
/// ```
///
/// Parsing reads no byte outside the payload and allocates nothing: it comes off the network, so every malformed
/// payload (truncated headers, lengths past the end, more blocks than ``maximumBlocks``) is a typed ``RTPError``.
/// A plain namespace, usable from any thread.
public enum REDPayload {
    /// The most blocks (redundant ones and the primary) a payload may carry: WebRTC sends at most 3.
    public static let maximumBlocks = 8
    /// The largest timestamp offset a header can carry (14 bits).
    public static let maximumTimestampOffset: UInt32 = 0x3FFF
    /// The largest redundant block a header can describe (10 bits).
    public static let maximumBlockLength = 0x3FF

    /// One block of a payload.
    public struct Block {
        /// The payload type of the block's data (Opus' for WebRTC).
        public let payloadType: UInt8
        /// How far the block's RTP timestamp is behind the packet's (0 for the primary).
        public let timestampOffset: UInt32
        /// How many blocks later the primary comes: 0 for the primary, 1 for the redundant block just before it, ...
        /// With a sender that puts its previous packets' payloads in (as WebRTC and TokKit do), the block's sequence
        /// number is the packet's minus `distance`.
        public let distance: Int
        /// The block's data; valid as long as the parsed payload is.
        public let bytes: UnsafeRawBufferPointer
    }

    /// Calls `body` with every block of `payload`, the primary first (a receiver stores it before the copies of the
    /// packets before it), then the redundant blocks newest first, after checking the whole header chain (nothing
    /// is handed out from a malformed payload). Throws ``RTPError/truncated(_:needed:available:)``
    /// when the headers or the blocks they describe run past the end, ``RTPError/invalidField(_:field:value:)`` for
    /// more than ``maximumBlocks`` blocks.
    public static func forEachBlock(in payload: UnsafeRawBufferPointer,
                                    _ body: (Block) -> Void) throws(RTPError) {
        // Pass 1: the headers, and the total length of the redundant blocks.
        var offset = 0, redundantCount = 0, redundantLength = 0
        while true {
            try require(.redundantAudio, offset + 1, payload.count)
            guard payload.u8(offset) & 0x80 != 0 else { break }
            try require(.redundantAudio, offset + 4, payload.count)
            redundantCount += 1
            guard redundantCount < maximumBlocks else {
                throw .invalidField(.redundantAudio, field: "block count", value: redundantCount + 1)
            }
            redundantLength += Int(payload.u16(offset + 2) & 0x03FF)
            offset += 4
        }
        let headerLength = offset + 1
        try require(.redundantAudio, headerLength + redundantLength, payload.count)
        // Pass 2: hand the blocks out, the primary first, then the redundant ones newest first.
        var end = headerLength + redundantLength
        body(Block(payloadType: payload.u8(offset) & 0x7F, timestampOffset: 0, distance: 0,
                   bytes: payload.slice(end, payload.count - end)))
        for i in stride(from: redundantCount - 1, through: 0, by: -1) {
            let word = payload.u32(i * 4)
            let length = Int(word & 0x03FF)
            end -= length
            body(Block(payloadType: UInt8(word >> 24) & 0x7F, timestampOffset: (word >> 10) & 0x3FFF,
                       distance: redundantCount - i, bytes: payload.slice(end, length)))
        }
    }

    /// Writes a payload of `primary` and, when given, one redundant block (`redundant`, `timestampOffset` behind)
    /// into `buffer`, all blocks of `payloadType`; returns its length. Throws ``RTPError/valueOutOfRange(field:value:)``
    /// for a payload type above 127, an offset above ``maximumTimestampOffset`` or a redundant block longer than
    /// ``maximumBlockLength``, ``RTPError/bufferTooSmall(needed:available:)`` when it does not fit.
    public static func write(primary: UnsafeRawBufferPointer,
                             redundant: (bytes: UnsafeRawBufferPointer, timestampOffset: UInt32)?,
                             payloadType: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        guard payloadType <= 127 else { throw .valueOutOfRange(field: "RED block payload type", value: Int(payloadType)) }
        var offset = 0
        if let redundant {
            guard redundant.timestampOffset <= maximumTimestampOffset else {
                throw .valueOutOfRange(field: "RED timestamp offset", value: Int(redundant.timestampOffset))
            }
            guard redundant.bytes.count <= maximumBlockLength else {
                throw .valueOutOfRange(field: "RED block length", value: redundant.bytes.count)
            }
            try requireSpace(5 + redundant.bytes.count + primary.count, buffer)
            let word: UInt32 = 0x8000_0000 | UInt32(payloadType) << 24 | redundant.timestampOffset << 10
                | UInt32(redundant.bytes.count)
            buffer.put32(word, at: 0)
            buffer.put8(payloadType, at: 4)
            buffer.put(redundant.bytes, at: 5)
            offset = 5 + redundant.bytes.count
        } else {
            try requireSpace(1 + primary.count, buffer)
            buffer.put8(payloadType, at: 0)
            offset = 1
        }
        buffer.put(primary, at: offset)
        return offset + primary.count
    }
}
