/// The sending side of RFC 2198 redundant audio for one stream: every packet carries the previous packet's payload
/// as a redundant block before its own (the primary), as WebRTC's RED encoder does with its default distance of
/// one, so a receiver recovers any single lost packet from the next one.
///
/// The previous payload is left out (the packet carries only its primary, still in RED format) when there is none
/// yet, when it is more than ``REDPayload/maximumTimestampOffset`` behind (after a DTX pause), or when it does not
/// fit a block header's 10-bit length or the buffer. Memory: two buffers of ``capacity`` bytes, allocated at init;
/// nothing per packet. Not thread-safe (one sender's lock guards it); ``deallocate()`` frees it (a value type
/// copied into a track, freed with it).
public struct REDPacketizer {
    /// The largest payload handled (an RTP packet's).
    public static let capacity = 1500

    /// The payload type of the RED packets (the `red` rtpmap).
    public let redPayloadType: UInt8
    /// The payload type of the blocks (Opus').
    public let blockPayloadType: UInt8
    private let previous: UnsafeMutableRawBufferPointer
    private let output: UnsafeMutableRawBufferPointer
    private var previousLength = 0
    private var previousTimestamp: UInt32 = 0
    private var hasPrevious = false
    /// Packets written with a redundant block.
    public private(set) var packetsWithRedundancy = 0

    /// Throws ``RTPError/valueOutOfRange(field:value:)`` for a payload type above 127.
    public init(redPayloadType: UInt8, blockPayloadType: UInt8) throws(RTPError) {
        guard redPayloadType <= 127, blockPayloadType <= 127 else {
            throw .valueOutOfRange(field: "payload type", value: Int(max(redPayloadType, blockPayloadType)))
        }
        self.redPayloadType = redPayloadType
        self.blockPayloadType = blockPayloadType
        previous = .allocate(byteCount: Self.capacity, alignment: 8)
        output = .allocate(byteCount: Self.capacity + 5 + REDPayload.maximumBlockLength, alignment: 8)
    }

    /// Frees the buffers; the packetizer must not be used afterwards.
    public func deallocate() {
        previous.deallocate()
        output.deallocate()
    }

    /// Wraps `payload` (with RTP timestamp `timestamp`) into a RED payload, with the previous payload as redundancy
    /// when it can go and the result stays within `limit` bytes, and remembers `payload` for the next packet. The
    /// result is valid until the next call. Throws ``RTPError/bufferTooSmall(needed:available:)`` for a payload over
    /// ``capacity`` bytes.
    public mutating func packetize(_ payload: UnsafeRawBufferPointer, timestamp: UInt32,
                                   limit: Int = capacity) throws(RTPError) -> UnsafeRawBufferPointer {
        guard payload.count <= Self.capacity else {
            throw .bufferTooSmall(needed: payload.count, available: Self.capacity)
        }
        let offset = timestamp &- previousTimestamp
        let fits = hasPrevious && offset > 0 && offset <= REDPayload.maximumTimestampOffset
            && previousLength > 0 && previousLength <= REDPayload.maximumBlockLength
            && 5 + previousLength + payload.count <= min(limit, Self.capacity)
        let redundant = fits
            ? (bytes: UnsafeRawBufferPointer(rebasing: previous[0..<previousLength]), timestampOffset: offset) : nil
        let length = try REDPayload.write(primary: payload, redundant: redundant, payloadType: blockPayloadType,
                                          into: output)
        if fits { packetsWithRedundancy += 1 }
        previous.put(payload, at: 0)
        previousLength = payload.count
        previousTimestamp = timestamp
        hasPrevious = true
        return UnsafeRawBufferPointer(rebasing: output[0..<length])
    }
}
