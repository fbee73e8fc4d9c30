/// The VP8 payload descriptor that starts every VP8 RTP payload (RFC 7741 §4.2).
///
/// ```
///       0 1 2 3 4 5 6 7
///      +-+-+-+-+-+-+-+-+
///      |X|R|N|S|R| PID | (REQUIRED)
///      +-+-+-+-+-+-+-+-+
/// X:   |I|L|T|K| RSV   | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
/// I:   |M| PictureID   | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
///      |   PictureID   | (present when M = 1: 15-bit picture ID)
///      +-+-+-+-+-+-+-+-+
/// L:   |   TL0PICIDX   | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
/// T/K: |TID|Y| KEYIDX  | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
/// ```
/// Reserved bits (R, RSV) are written as zero and ignored on receipt, as §4.2 requires. A descriptor with L set and
/// T clear is rejected (§4.2: "the T bit MUST be set to 1" when L is), as is any descriptor cut short. Parsing and
/// writing allocate nothing. A plain value, usable from any thread.
public struct VP8PayloadDescriptor: Hashable, Sendable {
    /// A picture ID in its 7-bit (M = 0) or 15-bit (M = 1) form (§4.2, I/M bits).
    public enum PictureID: Hashable, Sendable {
        case short(UInt8)
        case long(UInt16)

        /// The numeric value (0-127 or 0-32767).
        public var value: UInt16 {
            switch self {
            case .short(let v): UInt16(v)
            case .long(let v): v
            }
        }
    }

    /// N: the frame can be discarded without affecting any other frame.
    public var nonReference: Bool
    /// S: the first payload byte is the first byte of a VP8 partition.
    public var startOfPartition: Bool
    /// PID: the partition index, 0-7.
    public var partitionIndex: UInt8
    /// I/M: the picture ID, when present.
    public var pictureID: PictureID?
    /// L: TL0PICIDX, the running index of base temporal layer frames, when present.
    public var tl0PictureIndex: UInt8?
    /// T: TID, the temporal layer index (0-3), when present.
    public var temporalLayer: UInt8?
    /// Y: layer sync bit (meaningful when ``temporalLayer`` is present).
    public var layerSync: Bool
    /// K: KEYIDX, the temporal key frame index (0-31), when present.
    public var keyIndex: UInt8?
    /// The extension octet (X) was present in the parsed bytes although I, L, T and K are all clear; kept so that
    /// writing a parsed descriptor reproduces its length.
    public var hasEmptyExtension: Bool

    public init(
        nonReference: Bool = false, startOfPartition: Bool, partitionIndex: UInt8 = 0, pictureID: PictureID? = nil,
        tl0PictureIndex: UInt8? = nil, temporalLayer: UInt8? = nil, layerSync: Bool = false, keyIndex: UInt8? = nil
    ) {
        self.nonReference = nonReference
        self.startOfPartition = startOfPartition
        self.partitionIndex = partitionIndex
        self.pictureID = pictureID
        self.tl0PictureIndex = tl0PictureIndex
        self.temporalLayer = temporalLayer
        self.layerSync = layerSync
        self.keyIndex = keyIndex
        self.hasEmptyExtension = false
    }

    /// Whether this payload starts a frame: S = 1 and PID = 0 (§4.2, §4.4).
    public var startsFrame: Bool { startOfPartition && partitionIndex == 0 }

    /// Parses the descriptor at the start of `bytes`; ``serializedLength`` is the number of bytes it occupies.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        try require(.vp8PayloadDescriptor, 1, bytes.count)
        let first = bytes[0]
        self.init(startOfPartition: first & 0x10 != 0)
        nonReference = first & 0x20 != 0
        partitionIndex = first & 0x07
        guard first & 0x80 != 0 else { return }

        try require(.vp8PayloadDescriptor, 2, bytes.count)
        let x = bytes[1]
        let (i, l, t, k) = (x & 0x80 != 0, x & 0x40 != 0, x & 0x20 != 0, x & 0x10 != 0)
        if l && !t { throw .invalidField(.vp8PayloadDescriptor, field: "L bit without T bit", value: Int(x)) }
        hasEmptyExtension = !(i || l || t || k)
        var offset = 2
        if i {
            try require(.vp8PayloadDescriptor, offset + 1, bytes.count)
            if bytes[offset] & 0x80 != 0 {
                try require(.vp8PayloadDescriptor, offset + 2, bytes.count)
                pictureID = .long(bytes.u16(offset) & 0x7FFF)
                offset += 2
            } else {
                pictureID = .short(bytes[offset])
                offset += 1
            }
        }
        if l {
            try require(.vp8PayloadDescriptor, offset + 1, bytes.count)
            tl0PictureIndex = bytes[offset]
            offset += 1
        }
        if t || k {
            try require(.vp8PayloadDescriptor, offset + 1, bytes.count)
            let byte = bytes[offset]
            if t {
                temporalLayer = byte >> 6
                layerSync = byte & 0x20 != 0
            }
            if k { keyIndex = byte & 0x1F }
        }
    }

    /// Whether the X octet is written.
    private var hasExtension: Bool {
        hasEmptyExtension || pictureID != nil || tl0PictureIndex != nil || temporalLayer != nil || keyIndex != nil
    }

    /// Bytes the descriptor occupies on the wire (1-6).
    public var serializedLength: Int {
        guard hasExtension else { return 1 }
        var length = 2
        switch pictureID {
        case .short: length += 1
        case .long: length += 2
        case nil: break
        }
        if tl0PictureIndex != nil { length += 1 }
        if temporalLayer != nil || keyIndex != nil { length += 1 }
        return length
    }

    /// Checks every field against what the wire format can carry.
    public func validate() throws(RTPError) {
        guard partitionIndex <= 7 else { throw .valueOutOfRange(field: "VP8 PID", value: Int(partitionIndex)) }
        switch pictureID {
        case .short(let v) where v > 0x7F: throw .valueOutOfRange(field: "VP8 7-bit picture ID", value: Int(v))
        case .long(let v) where v > 0x7FFF: throw .valueOutOfRange(field: "VP8 15-bit picture ID", value: Int(v))
        default: break
        }
        if let tid = temporalLayer, tid > 3 { throw .valueOutOfRange(field: "VP8 TID", value: Int(tid)) }
        if let key = keyIndex, key > 0x1F { throw .valueOutOfRange(field: "VP8 KEYIDX", value: Int(key)) }
        if tl0PictureIndex != nil && temporalLayer == nil {
            throw .valueOutOfRange(field: "VP8 TL0PICIDX without TID", value: Int(tl0PictureIndex ?? 0))
        }
    }

    /// Writes the descriptor to the start of `buffer`; returns the bytes written.
    @discardableResult
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        try validate()
        let length = serializedLength
        try requireSpace(length, buffer)
        let extended = hasExtension
        buffer.put8((extended ? 0x80 : 0) | (nonReference ? 0x20 : 0) | (startOfPartition ? 0x10 : 0)
                    | partitionIndex, at: 0)
        guard extended else { return 1 }
        let hasTK = temporalLayer != nil || keyIndex != nil
        buffer.put8((pictureID != nil ? 0x80 : 0) | (tl0PictureIndex != nil ? 0x40 : 0)
                    | (temporalLayer != nil ? 0x20 : 0) | (keyIndex != nil ? 0x10 : 0), at: 1)
        var offset = 2
        switch pictureID {
        case .short(let v):
            buffer.put8(v, at: offset)
            offset += 1
        case .long(let v):
            buffer.put16(0x8000 | v, at: offset)
            offset += 2
        case nil: break
        }
        if let tl0 = tl0PictureIndex {
            buffer.put8(tl0, at: offset)
            offset += 1
        }
        if hasTK {
            buffer.put8((temporalLayer ?? 0) << 6 | (temporalLayer != nil && layerSync ? 0x20 : 0) | (keyIndex ?? 0),
                        at: offset)
            offset += 1
        }
        return offset
    }
}
