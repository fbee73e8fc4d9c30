/// Writes one ``RTCPTransportWideFeedback`` message (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1)
/// status by status, straight into caller-provided memory: the receiver's data-plane path, which allocates nothing.
///
/// Packet chunks go into `buffer` as they complete; receive deltas collect in `deltaScratch` and are moved behind
/// the chunks by ``finish()``, which also writes the header and the RFC 3550 padding. ``add(_:)`` refuses (returns
/// false, writing nothing) a status that would make the message outgrow `buffer`, the delta scratch or the 16-bit
/// status count: finish this message and describe the rest in a new one. Both buffers must stay valid and unshared
/// until ``finish()`` returns. A plain value for one thread.
public struct RTCPTransportWideFeedbackBuilder {
    /// Common feedback header (12 bytes) plus base sequence number, status count, reference time and count.
    static let fixedLength = RTCPFeedbackHeader.length + 8
    /// The smallest message: the fixed part, describing no packet (one received packet needs 24 bytes).
    public static let minimumBufferLength = fixedLength

    let buffer: UnsafeMutableRawBufferPointer
    let deltaScratch: UnsafeMutableRawBufferPointer
    let senderSSRC: UInt32
    let mediaSSRC: UInt32
    let baseSequenceNumber: UInt16
    let referenceTime: UInt32
    let feedbackPacketCount: UInt8
    var encoder = ChunkEncoder()
    var chunkCount = 0
    var deltaBytes = 0
    /// Statuses added so far.
    public private(set) var statusCount = 0

    /// Starts a message. Throws ``RTPError/bufferTooSmall(needed:available:)`` when `buffer` holds less than
    /// ``minimumBufferLength`` bytes.
    public init(into buffer: UnsafeMutableRawBufferPointer, deltaScratch: UnsafeMutableRawBufferPointer,
                senderSSRC: UInt32, mediaSSRC: UInt32, baseSequenceNumber: UInt16, referenceTime: UInt32,
                feedbackPacketCount: UInt8) throws(RTPError) {
        try requireSpace(Self.minimumBufferLength, buffer)
        self.buffer = buffer
        self.deltaScratch = deltaScratch
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.baseSequenceNumber = baseSequenceNumber
        self.referenceTime = referenceTime & 0xFF_FFFF
        self.feedbackPacketCount = feedbackPacketCount
    }

    /// Bytes the message would take if finished now.
    public var length: Int {
        (Self.fixedLength + 2 * (chunkCount + (encoder.count > 0 ? 1 : 0)) + deltaBytes + 3) & ~3
    }

    /// Appends the status of the next packet (`baseSequenceNumber + statusCount`); false when it does not fit.
    public mutating func add(_ status: RTCPTransportWideFeedback.PacketStatus) -> Bool {
        guard statusCount < RTCPTransportWideFeedback.maximumStatusCount else { return false }
        let symbol = status.symbol
        let deltaSize = Int(symbol)  // 0, 1 or 2 bytes (§3.1.5)
        // Exact size after adding: chunks the encoder would complete, plus the one its remainder fills.
        var trial = encoder
        var completed = 0
        while !trial.canAdd(symbol) {
            _ = trial.emit()
            completed += 1
        }
        let projected = (Self.fixedLength + 2 * (chunkCount + completed + 1) + deltaBytes + deltaSize + 3) & ~3
        guard projected <= buffer.count, deltaBytes + deltaSize <= deltaScratch.count else { return false }

        while !encoder.canAdd(symbol) { putChunk(encoder.emit()) }
        encoder.add(symbol)
        switch status {
        case .notReceived: break
        case let .receivedSmallDelta(d): deltaScratch.put8(d, at: deltaBytes)
        case let .receivedLargeDelta(d): deltaScratch.put16(UInt16(bitPattern: d), at: deltaBytes)
        }
        deltaBytes += deltaSize
        statusCount += 1
        return true
    }

    private mutating func putChunk(_ chunk: UInt16) {
        buffer.put16(chunk, at: Self.fixedLength + 2 * chunkCount)
        chunkCount += 1
    }

    /// Completes the message at the start of `buffer` and returns its length in bytes. The builder is spent.
    public mutating func finish() throws(RTPError) -> Int {
        if encoder.count > 0 { putChunk(encoder.flush()) }
        let deltasAt = Self.fixedLength + 2 * chunkCount
        buffer.put(UnsafeRawBufferPointer(rebasing: deltaScratch[..<deltaBytes]), at: deltasAt)
        let unpadded = deltasAt + deltaBytes
        let length = (unpadded + 3) & ~3
        let padding = length - unpadded
        if padding > 0 {  // RFC 3550 §6.4.1: the last padding octet counts the padding.
            buffer.zero(unpadded, padding - 1)
            buffer.put8(UInt8(padding), at: length - 1)
        }
        try RTCPHeader(hasPadding: padding > 0, count: RTCPTransportWideFeedback.format,
                       packetType: RTCPPacketType.transportFeedback, packetLength: length).write(into: buffer)
        buffer.put32(senderSSRC, at: 4)
        buffer.put32(mediaSSRC, at: 8)
        buffer.put16(baseSequenceNumber, at: 12)
        buffer.put16(UInt16(statusCount), at: 14)
        buffer.put32(referenceTime << 8 | UInt32(feedbackPacketCount), at: 16)
        return length
    }

    /// Packs status symbols into packet chunks (§3.1.3, §3.1.4) the way libwebrtc does: a run of one symbol
    /// grows into a run-length chunk (up to 8191); otherwise 14 one-bit symbols when there is no large delta
    /// among them, else 7 two-bit ones. Holds at most 14 pending symbols in one integer.
    struct ChunkEncoder {
        /// Pending symbols, 2 bits each, the first in the low bits (only the first 14 are kept).
        private var symbols: UInt32 = 0
        private(set) var count = 0
        private var allSame = true
        private var hasLarge = false
        private var first: UInt8 = 0

        private func symbol(_ i: Int) -> UInt16 { UInt16(truncatingIfNeeded: symbols >> (2 * i) & 0x3) }

        /// Whether `symbol` can join the pending ones without completing a chunk first.
        func canAdd(_ symbol: UInt8) -> Bool {
            count < 7 || (count < 14 && !hasLarge && symbol != 2) || (count < 8191 && allSame && symbol == first)
        }

        mutating func add(_ symbol: UInt8) {
            if count < 14 { symbols |= UInt32(symbol) << (2 * count) }
            if count == 0 {
                first = symbol
                allSame = true
            } else if symbol != first {
                allSame = false
            }
            if symbol == 2 { hasLarge = true }
            count += 1
        }

        /// Completes one chunk from the pending symbols; called when the next symbol cannot be added.
        mutating func emit() -> UInt16 {
            if allSame { return takeAll(runLength()) }
            if count == 14 { return takeAll(oneBitVector()) }
            // 7 to 13 symbols with mixed values: the first 7 as two-bit symbols, keep the rest pending.
            let chunk = twoBitVector()
            let rest = count - 7
            let remaining = symbols >> 14
            self = ChunkEncoder()
            for i in 0 ..< rest { add(UInt8(truncatingIfNeeded: remaining >> (2 * i) & 0x3)) }
            return chunk
        }

        /// The last chunk of a message, from whatever is pending (at least one symbol).
        mutating func flush() -> UInt16 {
            if allSame { return takeAll(runLength()) }
            return takeAll(count <= 7 ? twoBitVector() : oneBitVector())
        }

        private mutating func takeAll(_ chunk: UInt16) -> UInt16 {
            self = ChunkEncoder()
            return chunk
        }

        private func runLength() -> UInt16 { UInt16(first) << 13 | UInt16(count) }

        private func oneBitVector() -> UInt16 {
            var chunk: UInt16 = 0x8000
            for i in 0 ..< min(count, 14) { chunk |= (symbol(i) & 1) << (13 - i) }
            return chunk
        }

        private func twoBitVector() -> UInt16 {
            var chunk: UInt16 = 0xC000
            for i in 0 ..< min(count, 7) { chunk |= symbol(i) << (12 - 2 * i) }
            return chunk
        }
    }
}
