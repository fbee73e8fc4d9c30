/// A generic negative acknowledgement, NACK (RFC 4585 §6.2.1): the media sender should retransmit these packets.
///
/// ```
/// |V=2|P|  FMT=1  |   PT=RTPFB=205|          length               |
/// |                  SSRC of packet sender                        |
/// |                  SSRC of media source                         |
/// |            PID                |             BLP               |  × n
/// ```
/// Each FCI entry names packet `PID` and, for every bit i set in the bitmask of following lost packets (BLP),
/// packet `PID + i + 1` (modulo 2^16).
public struct RTCPGenericNACK: RTCPPacketProtocol {
    public static let format: UInt8 = 1

    /// One FCI entry: a lost packet and a bitmask of the 16 that follow it.
    public struct Item: Hashable, Sendable {
        public var packetID: UInt16
        public var lostBitmask: UInt16

        public init(packetID: UInt16, lostBitmask: UInt16 = 0) {
            self.packetID = packetID
            self.lostBitmask = lostBitmask
        }

        /// The sequence numbers this entry reports lost, in increasing order (modulo 2^16).
        public var sequenceNumbers: [UInt16] {
            [packetID] + (0 ..< 16).filter { lostBitmask & (1 << $0) != 0 }.map { packetID &+ UInt16($0 + 1) }
        }
    }

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var items: [Item]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32, items: [Item]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.items = items
    }

    /// Builds the entries for a list of lost sequence numbers. Any order is correct; in increasing order (modulo
    /// 2^16, as a receiver detects losses) the encoding is also the most compact. Duplicates of an entry's PID are
    /// merged.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, lostSequenceNumbers: some Sequence<UInt16>) {
        var items: [Item] = []
        Self.forEachItem(lostSequenceNumbers) { items.append($0) }
        self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, items: items)
    }

    /// Walks `lost` and reports each completed FCI entry to `body`, allocating nothing.
    static func forEachItem<E: Error>(_ lost: some Sequence<UInt16>, _ body: (Item) throws(E) -> Void) throws(E) {
        var current: Item? = nil
        for seq in lost {
            if let item = current {
                let delta = seq &- item.packetID
                if delta == 0 { continue }
                if delta <= 16 {
                    current!.lostBitmask |= 1 << (delta - 1)
                    continue
                }
                try body(item)
            }
            current = Item(packetID: seq)
        }
        if let current { try body(current) }
    }

    /// Every sequence number the packet reports lost, entry by entry.
    public var lostSequenceNumbers: [UInt16] { items.flatMap(\.sequenceNumbers) }

    /// Calls `body` with every sequence number the packet reports lost, entry by entry (the order of
    /// ``lostSequenceNumbers``), allocating nothing.
    public func forEachLostSequenceNumber(_ body: (UInt16) -> Void) {
        for item in items {
            // The packet id, then one more for each bit of the bitmask set (RFC 4585 §6.2.1).
            for bit in -1 ..< 16 where bit < 0 || item.lostBitmask & (1 << bit) != 0 {
                body(item.packetID &+ UInt16(bit + 1))
            }
        }
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        let fb = try RTCPFeedbackHeader(parsing: bytes, type: RTCPPacketType.transportFeedback, format: Self.format)
        let count = fb.fci.count / 4
        guard count * 4 == fb.fci.count, count > 0 else {
            throw .countMismatch(.feedbackControlInformation, count: count, length: fb.fci.count)
        }
        self.init(
            senderSSRC: fb.senderSSRC, mediaSSRC: fb.mediaSSRC,
            items: (0 ..< count).map { Item(packetID: fb.fci.u16($0 * 4), lostBitmask: fb.fci.u16($0 * 4 + 2)) })
    }

    public var serializedLength: Int { RTCPFeedbackHeader.length + 4 * items.count }

    @discardableResult
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        guard !items.isEmpty else { throw .valueOutOfRange(field: "NACK entry count", value: 0) }
        let length = serializedLength
        try RTCPFeedbackHeader.write(
            type: RTCPPacketType.transportFeedback, format: Self.format, senderSSRC: senderSSRC, mediaSSRC: mediaSSRC,
            length: length, into: buffer)
        for (i, item) in items.enumerated() {
            buffer.put16(item.packetID, at: RTCPFeedbackHeader.length + 4 * i)
            buffer.put16(item.lostBitmask, at: RTCPFeedbackHeader.length + 4 * i + 2)
        }
        return length
    }

    /// Writes a NACK for `lostSequenceNumbers` straight into `buffer` without building ``items`` (the receiver's
    /// data-plane path: no allocation). Returns the bytes written; throws if the list is empty or does not fit.
    public static func write(
        senderSSRC: UInt32, mediaSSRC: UInt32, lostSequenceNumbers: some Sequence<UInt16>,
        into buffer: UnsafeMutableRawBufferPointer
    ) throws(RTPError) -> Int {
        var offset = RTCPFeedbackHeader.length
        try requireSpace(offset, buffer)
        try forEachItem(lostSequenceNumbers) { (item) throws(RTPError) in
            try requireSpace(offset + 4, buffer)
            buffer.put16(item.packetID, at: offset)
            buffer.put16(item.lostBitmask, at: offset + 2)
            offset += 4
        }
        guard offset > RTCPFeedbackHeader.length else { throw .valueOutOfRange(field: "NACK entry count", value: 0) }
        try RTCPFeedbackHeader.write(
            type: RTCPPacketType.transportFeedback, format: format, senderSSRC: senderSSRC, mediaSSRC: mediaSSRC,
            length: offset, into: buffer)
        return offset
    }
}
