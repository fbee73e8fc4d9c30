/// A source description packet, SDES (RFC 3550 §6.5): per source, a list of items such as the CNAME.
///
/// ```
/// |V=2|P|    SC   |  PT=SDES=202  |             length            |
/// |                          SSRC/CSRC_1                          |
/// |    type (1)   |     length    |  text ...                     |
/// |   ... null octet(s) ending the item list, padded to 32 bits    |
/// |                          SSRC/CSRC_2 ...                      |
/// ```
public struct RTCPSourceDescription: RTCPPacketProtocol {
    /// One SDES item (RFC 3550 §6.5.1-6.5.8); its text is at most 255 bytes of UTF-8.
    public struct Item: Hashable, Sendable {
        public static let cname: UInt8 = 1
        public static let name: UInt8 = 2
        public static let tool: UInt8 = 6

        /// Item type, 1-255 (0 ends a list on the wire and is never an item).
        public var type: UInt8
        public var value: [UInt8]

        public init(type: UInt8, value: [UInt8]) {
            self.type = type
            self.value = value
        }

        public init(type: UInt8, text: String) { self.init(type: type, value: Array(text.utf8)) }

        /// The value decoded as UTF-8 (invalid sequences replaced).
        public var text: String { String(decoding: value, as: UTF8.self) }
    }

    /// The items describing one source (RFC 3550 §6.5).
    public struct Chunk: Hashable, Sendable {
        public var source: UInt32
        public var items: [Item]

        public init(source: UInt32, items: [Item]) {
            self.source = source
            self.items = items
        }

        /// A chunk with just a CNAME item (what WebRTC senders put in every compound packet).
        public init(source: UInt32, cname: String) {
            self.init(source: source, items: [Item(type: Item.cname, text: cname)])
        }

        /// The CNAME item's text, if present.
        public var cname: String? { items.first { $0.type == Item.cname }?.text }

        /// Bytes on the wire: SSRC, items, the terminating null octet, padding to 32 bits.
        var serializedLength: Int {
            var length = 4 + 1
            for item in items { length += 2 + item.value.count }
            return (length + 3) & ~3
        }
    }

    public var chunks: [Chunk]

    public init(chunks: [Chunk]) { self.chunks = chunks }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        let packet = try RTCPPacketBytes(parsing: bytes, type: RTCPPacketType.sourceDescription)
        let body = packet.body
        let count = Int(packet.header.count)
        // Every chunk takes at least 8 bytes: reject counts the length cannot hold before allocating.
        guard count * 8 <= body.count else { throw .countMismatch(.sdesChunk, count: count, length: body.count) }
        var chunks: [Chunk] = []
        chunks.reserveCapacity(count)
        var offset = 0
        for _ in 0 ..< count {
            try require(.sdesChunk, offset + 4, body.count)
            var chunk = Chunk(source: body.u32(offset), items: [])
            offset += 4
            while true {
                try require(.sdesItem, offset + 1, body.count)
                let type = body[offset]
                if type == 0 {
                    offset = (offset + 4) & ~3  // the null octet plus padding to the next 32-bit boundary
                    guard offset <= body.count else { throw .truncated(.sdesChunk, needed: offset, available: body.count) }
                    break
                }
                try require(.sdesItem, offset + 2, body.count)
                let length = Int(body[offset + 1])
                try require(.sdesItem, offset + 2 + length, body.count)
                chunk.items.append(Item(type: type, value: Array(body.slice(offset + 2, length))))
                offset += 2 + length
            }
            chunks.append(chunk)
        }
        self.init(chunks: chunks)
    }

    public var serializedLength: Int { chunks.reduce(RTCPHeader.length) { $0 + $1.serializedLength } }

    @discardableResult
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        guard chunks.count < 32 else { throw .valueOutOfRange(field: "SDES chunk count", value: chunks.count) }
        for chunk in chunks {
            for item in chunk.items {
                guard item.type != 0 else { throw .valueOutOfRange(field: "SDES item type", value: 0) }
                guard item.value.count <= 255 else {
                    throw .valueOutOfRange(field: "SDES item length", value: item.value.count)
                }
            }
        }
        let length = serializedLength
        try RTCPHeader(count: UInt8(chunks.count), packetType: RTCPPacketType.sourceDescription, packetLength: length)
            .write(into: buffer)
        var offset = RTCPHeader.length
        for chunk in chunks {
            let end = offset + chunk.serializedLength
            buffer.put32(chunk.source, at: offset)
            offset += 4
            for item in chunk.items {
                buffer.put8(item.type, at: offset)
                buffer.put8(UInt8(item.value.count), at: offset + 1)
                item.value.withUnsafeBytes { buffer.put($0, at: offset + 2) }
                offset += 2 + item.value.count
            }
            buffer.zero(offset, end - offset)
            offset = end
        }
        return length
    }
}
