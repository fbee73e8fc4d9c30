/// A received RTP packet, parsed in place (RFC 3550 §5.1, header extensions RFC 8285).
///
/// `RTPPacketView(parsing:)` checks the whole header (version, CSRC list, extension block and every extension element,
/// padding) against the buffer once; after that every accessor reads validated bytes, and nothing is copied or
/// allocated. The view borrows the buffer: it is valid only while the memory it was made from is, typically inside
/// the receive callback. Use ``RTPHeader/init(_:)`` to keep an owned copy. A view is a value that is read on the
/// thread that owns the buffer.
public struct RTPPacketView {
    /// Fixed header length (RFC 3550 §5.1).
    public static let fixedHeaderLength = 12

    /// The whole packet, padding included.
    public let bytes: UnsafeRawBufferPointer
    /// Bytes from the start of the packet to the first payload byte.
    public let headerLength: Int
    /// Bytes of padding at the end of the packet, the count octet included (0 when P is clear).
    public let paddingLength: Int
    /// Form of the extension block, `nil` when X is clear.
    public let extensionForm: RTPHeaderExtensionForm?
    let extensionRange: Range<Int>

    /// Parses the header of `bytes`; throws on anything that does not fit (never reads past the buffer).
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        try require(.rtpHeader, Self.fixedHeaderLength, bytes.count)
        let first = bytes[0]
        guard first >> 6 == 2 else { throw .unsupportedVersion(first >> 6) }
        var offset = Self.fixedHeaderLength + Int(first & 0x0F) * 4
        try require(.csrcList, offset, bytes.count)

        var extensionForm: RTPHeaderExtensionForm? = nil
        var extensionRange = offset ..< offset
        if first & 0x10 != 0 {
            try require(.headerExtension, offset + 4, bytes.count)
            let form = RTPHeaderExtensionForm(profile: bytes.u16(offset))
            let length = Int(bytes.u16(offset + 2)) * 4
            try require(.headerExtension, offset + 4 + length, bytes.count)
            extensionRange = offset + 4 ..< offset + 4 + length
            try RTPHeaderExtensionElements.validate(bytes.slice(offset + 4, length), form: form)
            extensionForm = form
            offset += 4 + length
        }

        var padding = 0
        if first & 0x20 != 0 {
            let available = bytes.count - offset
            guard available > 0 else { throw .invalidPadding(count: 0, available: 0) }
            padding = Int(bytes[bytes.count - 1])
            guard padding > 0, padding <= available else { throw .invalidPadding(count: padding, available: available) }
        }
        self.bytes = bytes
        self.headerLength = offset
        self.paddingLength = padding
        self.extensionForm = extensionForm
        self.extensionRange = extensionRange
    }

    /// RTP version (always 2 for a parsed view).
    public var version: UInt8 { bytes[0] >> 6 }
    /// P bit: the packet ends with padding.
    public var hasPadding: Bool { bytes[0] & 0x20 != 0 }
    /// M bit: profile-defined (end of a video frame for VP8).
    public var marker: Bool { bytes[1] & 0x80 != 0 }
    /// Payload type, 0-127.
    public var payloadType: UInt8 { bytes[1] & 0x7F }
    public var sequenceNumber: UInt16 { bytes.u16(2) }
    public var timestamp: UInt32 { bytes.u32(4) }
    public var ssrc: UInt32 { bytes.u32(8) }
    /// Number of contributing sources, 0-15.
    public var csrcCount: Int { Int(bytes[0] & 0x0F) }

    /// The contributing source at `index` (0 ..< csrcCount), `nil` outside that range.
    public func csrc(at index: Int) -> UInt32? {
        guard index >= 0, index < csrcCount else { return nil }
        return bytes.u32(Self.fixedHeaderLength + 4 * index)
    }

    /// The "defined by profile" field of the extension block, `nil` when X is clear.
    public var extensionProfile: UInt16? { extensionForm?.profile }

    /// The raw extension block (without its 4-byte header); empty when X is clear.
    public var extensionBlock: UnsafeRawBufferPointer { bytes.slice(extensionRange.lowerBound, extensionRange.count) }

    /// The RFC 8285 elements of the extension block (none for an opaque profile or when X is clear).
    public var extensions: RTPHeaderExtensionElements {
        RTPHeaderExtensionElements(block: extensionBlock, form: extensionForm ?? .opaque(profile: 0))
    }

    /// The payload, between the header and the padding.
    public var payload: UnsafeRawBufferPointer { bytes.slice(headerLength, payloadLength) }
    public var payloadLength: Int { bytes.count - headerLength - paddingLength }
}
