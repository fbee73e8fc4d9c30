/// Splits encoded VP8 frames into RTP payloads (RFC 7741 §4.1, §4.2), the way libwebrtc does.
///
/// Every payload starts with a 4-byte descriptor: X and I set, a 15-bit picture ID that increases by one per frame
/// (modulo 2^15), S set on the first payload of the frame only, PID 0 (the whole frame is treated as one partition,
/// RFC 7741 §4.4 allows it). A frame of a temporal layer (`temporalLayer` given) gets a 6-byte descriptor on every
/// payload: L and T set too, TL0PICIDX (a running index of layer-0 frames, increased by one at each layer-0 frame,
/// modulo 256, as libwebrtc does), TID and the Y (layer sync) bit; K is never set. The frame is cut into the fewest payloads of at most ``maximumPayloadSize`` bytes, of
/// nearly equal sizes (they differ by at most one byte, larger ones last), so no runt packet trails a frame. The RTP
/// marker bit belongs on the last payload of the frame (§4.1): ``packetize(_:nonReference:_:)`` says which one.
///
/// Payloads are written into one scratch buffer allocated at init and handed to the caller's closure one at a time:
/// nothing is allocated per frame or packet. Threading: not thread-safe; use an instance from one media thread.
public final class VP8Packetizer {
    /// A 1200-byte packet budget minus the 12-byte RTP header.
    public static let defaultMaximumPayloadSize = 1200 - RTPPacketView.fixedHeaderLength
    /// Length of the descriptor this packetizer writes (X, I, 15-bit picture ID).
    public static let descriptorLength = 4
    /// Length of the descriptor of a temporal layer's frame (X, I, L, T, 15-bit picture ID, TL0PICIDX, TID/Y).
    public static let temporalDescriptorLength = 6

    /// Largest payload emitted, descriptor included.
    public let maximumPayloadSize: Int
    /// The picture ID the next frame gets (0-32767).
    public private(set) var pictureID: UInt16
    /// The TL0PICIDX of the last layer-0 frame (the next layer-0 frame gets this plus one).
    public private(set) var tl0PictureIndex: UInt8
    private let scratch: UnsafeMutableRawBufferPointer

    /// Throws ``RTPError/valueOutOfRange(field:value:)`` unless `maximumPayloadSize` leaves room for at least one
    /// byte of frame after the descriptor (and fits an RTP packet, 65535 bytes).
    public init(maximumPayloadSize: Int = defaultMaximumPayloadSize,
                pictureID: UInt16 = .random(in: 0...0x7FFF),
                tl0PictureIndex: UInt8 = .random(in: 0...255)) throws(RTPError) {
        guard maximumPayloadSize > Self.descriptorLength, maximumPayloadSize <= 65_535 - 12 else {
            throw .valueOutOfRange(field: "VP8 maximum payload size", value: maximumPayloadSize)
        }
        self.maximumPayloadSize = maximumPayloadSize
        self.pictureID = pictureID & 0x7FFF
        self.tl0PictureIndex = tl0PictureIndex
        scratch = .allocate(byteCount: maximumPayloadSize, alignment: 8)
    }

    deinit { scratch.deallocate() }

    /// Number of payloads a frame of `frameLength` bytes becomes (0 for an empty frame); `temporal`: a temporal
    /// layer's frame (longer descriptor).
    public func packetCount(frameLength: Int, temporal: Bool = false) -> Int {
        guard frameLength > 0 else { return 0 }
        let capacity = maximumPayloadSize - (temporal ? Self.temporalDescriptorLength : Self.descriptorLength)
        return (frameLength + capacity - 1) / capacity
    }

    /// Emits the payloads of one encoded frame, in order, to `emit(payload, marker)`; `marker` is true for the
    /// last one. The payload bytes are valid only during the call. Returns the number of payloads; an empty frame
    /// emits nothing, returns 0 and does not use a picture ID. An error thrown by `emit` stops the frame (its
    /// picture ID is used anyway, so the receiver sees a gap rather than two frames with one ID).
    /// `temporalLayer` (0...3) and `layerSync`: the frame's TID and Y bit when the encoder makes temporal layers
    /// (nil: no L/T fields); a layer-0 frame advances ``tl0PictureIndex`` (also when it emits nothing).
    @discardableResult
    public func packetize<E: Error>(
        _ frame: UnsafeRawBufferPointer, nonReference: Bool = false, temporalLayer: UInt8? = nil,
        layerSync: Bool = false, _ emit: (_ payload: UnsafeRawBufferPointer, _ marker: Bool) throws(E) -> Void
    ) throws(E) -> Int {
        if temporalLayer == 0 { tl0PictureIndex &+= 1 }
        // A payload too small for the longer descriptor (tests only) goes without the temporal fields.
        let temporalLayer = maximumPayloadSize > Self.temporalDescriptorLength ? temporalLayer : nil
        let count = packetCount(frameLength: frame.count, temporal: temporalLayer != nil)
        guard count > 0, let source = frame.baseAddress, let target = scratch.baseAddress else { return 0 }
        let id = pictureID
        pictureID = (pictureID &+ 1) & 0x7FFF
        // Sizes: `count - larger` payloads of `base` bytes, then `larger` of `base + 1`.
        let base = frame.count / count, larger = frame.count % count
        let first: UInt8 = 0x80 | (nonReference ? 0x20 : 0)
        let descriptorLength: Int
        if let temporalLayer {
            descriptorLength = Self.temporalDescriptorLength
            scratch.put8(0xE0, at: 1)  // I, L, T
            scratch.put16(0x8000 | id, at: 2)
            scratch.put8(tl0PictureIndex, at: 4)
            scratch.put8((temporalLayer & 0x03) << 6 | (layerSync ? 0x20 : 0), at: 5)
        } else {
            descriptorLength = Self.descriptorLength
            scratch.put8(0x80, at: 1)
            scratch.put16(0x8000 | id, at: 2)
        }
        var offset = 0
        for index in 0..<count {
            let size = index < count - larger ? base : base + 1
            scratch.put8(index == 0 ? first | 0x10 : first, at: 0)
            (target + descriptorLength).copyMemory(from: source + offset, byteCount: size)
            offset += size
            try emit(UnsafeRawBufferPointer(start: target, count: descriptorLength + size), index == count - 1)
        }
        return count
    }
}
