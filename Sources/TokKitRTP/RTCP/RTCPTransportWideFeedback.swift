/// Transport-wide congestion control feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1): a
/// transport-layer feedback message (RFC 4585 §6.2, RTPFB FMT 15) telling the media sender when each packet,
/// numbered by the transport-wide sequence number header extension (§2), arrived, or that it did not.
///
/// ```
/// |V=2|P|  FMT=15 |    PT=205     |           length              |
/// |                     SSRC of packet sender                     |
/// |                      SSRC of media source                     |
/// |      base sequence number     |      packet status count      |
/// |                 reference time                | fb pkt. count |
/// |          packet chunk         |         packet chunk          |  ...
/// |         packet chunk          |  recv delta   |  recv delta   |  ...
/// |           recv delta          |  recv delta   | zero padding  |
/// ```
/// Packet `base + i` (modulo 2^16) has status `statuses[i]`. Packet chunks (§3.1.1) are run-length chunks (§3.1.3:
/// one symbol repeated up to 8191 times) or status vector chunks (§3.1.4: 14 one-bit or 7 two-bit symbols);
/// symbols are 0 "not received", 1 "received, small delta", 2 "received, large or negative delta" (3 is
/// reserved). Each received packet then has a receive delta (§3.1.5) in 250 µs ticks: one unsigned byte
/// (small, 0-63.75 ms) or a signed 16-bit value (large, about ±8.2 s). The first received packet's delta is
/// relative to the reference time (24 bits, in multiples of 64 ms, §3.1), each further one to the previous
/// received packet in sequence-number order.
///
/// The serializer chooses the chunks (run-length for long runs, otherwise the densest vector, as libwebrtc does)
/// and pads to 32 bits with RFC 3550 padding, P bit set. The parser accepts chunks whose symbols run past the
/// status count, zero padding without the P bit, and rejects the reserved symbol and truncated deltas with a typed
/// error. ``init(parsing:)`` and ``serialized()`` allocate; the data plane parses with ``parse(_:)`` into a value
/// it keeps (no allocation once its status storage has grown) and writes through
/// ``RTCPTransportWideFeedbackBuilder`` without allocating.
public struct RTCPTransportWideFeedback: RTCPPacketProtocol {
    public static let format: UInt8 = 15
    /// Largest number of packets one message can describe (the 16-bit status count).
    public static let maximumStatusCount = 65535
    /// One receive delta tick (§3.1.5): 250 µs.
    public static let deltaTickMicroseconds: Int64 = 250
    /// One reference time unit (§3.1): 64 ms.
    public static let referenceTimeUnitMicroseconds: Int64 = 64_000

    /// What the receiver says about one packet (§3.1.1, §3.1.5).
    public enum PacketStatus: Hashable, Sendable {
        case notReceived
        /// Received; delta 0-255 ticks of 250 µs, written in one byte.
        case receivedSmallDelta(UInt8)
        /// Received; delta in 250 µs ticks, negative or above 255, written in two bytes.
        case receivedLargeDelta(Int16)

        /// The status for a received packet whose delta is `ticks` (small when it fits a byte).
        public init(deltaTicks ticks: Int16) {
            self = (0...255).contains(ticks) ? .receivedSmallDelta(UInt8(ticks)) : .receivedLargeDelta(ticks)
        }

        /// The 2-bit packet status symbol (§3.1.1).
        public var symbol: UInt8 {
            switch self {
            case .notReceived: 0
            case .receivedSmallDelta: 1
            case .receivedLargeDelta: 2
            }
        }

        /// The receive delta in 250 µs ticks, nil when not received.
        public var deltaTicks: Int16? {
            switch self {
            case .notReceived: nil
            case let .receivedSmallDelta(d): Int16(d)
            case let .receivedLargeDelta(d): d
            }
        }
    }

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    /// Transport-wide sequence number of the first packet described.
    public var baseSequenceNumber: UInt16
    /// 24-bit reference time in multiples of 64 ms (modulo 2^24).
    public var referenceTime: UInt32
    /// Counts feedback messages sent, modulo 256, so the sender can detect lost feedback.
    public var feedbackPacketCount: UInt8
    /// Status of packets `baseSequenceNumber`, `baseSequenceNumber + 1`, ... (modulo 2^16).
    public var statuses: [PacketStatus]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32, baseSequenceNumber: UInt16, referenceTime: UInt32,
                feedbackPacketCount: UInt8, statuses: [PacketStatus]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.baseSequenceNumber = baseSequenceNumber
        self.referenceTime = referenceTime
        self.feedbackPacketCount = feedbackPacketCount
        self.statuses = statuses
    }

    /// Every packet described, with its arrival time in microseconds on the reference time's clock
    /// (reference time × 64 ms plus the running sum of deltas), nil when not received.
    public var arrivals: [(sequenceNumber: UInt16, microseconds: Int64?)] {
        var time = Int64(referenceTime) * Self.referenceTimeUnitMicroseconds
        return statuses.enumerated().map { i, status in
            let sequence = baseSequenceNumber &+ UInt16(truncatingIfNeeded: i)
            guard let ticks = status.deltaTicks else { return (sequence, nil) }
            time += Int64(ticks) * Self.deltaTickMicroseconds
            return (sequence, time)
        }
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        self.init(senderSSRC: 0, mediaSSRC: 0, baseSequenceNumber: 0, referenceTime: 0, feedbackPacketCount: 0,
                  statuses: [])
        try parse(bytes)
    }

    /// Parses the message in `bytes` into this value, reusing the storage of ``statuses``: once it has grown to
    /// the longest message seen, parsing allocates nothing (the receive path keeps one value per connection).
    /// After a thrown error the value's contents are unspecified.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer) throws(RTPError) {
        let fb = try RTCPFeedbackHeader(parsing: bytes, type: RTCPPacketType.transportFeedback, format: Self.format)
        let fci = fb.fci
        try require(.feedbackControlInformation, 8, fci.count)
        let count = Int(fci.u16(2))
        statuses.removeAll(keepingCapacity: true)
        // Every chunk holds at least one status and takes 2 bytes: never reserve more than the bytes can describe.
        statuses.reserveCapacity(min(count, (fci.count - 8) / 2 * 8191))
        var offset = 8
        // §3.1.1-§3.1.4: chunks until the status count is covered; symbols past it are padding.
        while statuses.count < count {
            try require(.packetStatusChunk, offset + 2, fci.count)
            let chunk = fci.u16(offset)
            offset += 2
            let left = count - statuses.count
            if chunk & 0x8000 == 0 {  // run-length chunk (§3.1.3)
                let status = try Self.placeholder(symbol: UInt8(chunk >> 13 & 0x3))
                let run = Int(chunk & 0x1FFF)
                statuses.append(contentsOf: repeatElement(status, count: min(run, left)))
            } else if chunk & 0x4000 == 0 {  // status vector chunk, 14 one-bit symbols (§3.1.4)
                for i in 0 ..< min(14, left) {
                    statuses.append(chunk >> (13 - i) & 1 == 0 ? .notReceived : .receivedSmallDelta(0))
                }
            } else {  // status vector chunk, 7 two-bit symbols (§3.1.4)
                for i in 0 ..< min(7, left) {
                    statuses.append(try Self.placeholder(symbol: UInt8(chunk >> (12 - 2 * i) & 0x3)))
                }
            }
        }
        // §3.1.5: one delta per received packet, in order.
        for i in statuses.indices {
            switch statuses[i] {
            case .notReceived: continue
            case .receivedSmallDelta:
                try require(.receiveDelta, offset + 1, fci.count)
                statuses[i] = .receivedSmallDelta(fci[offset])
                offset += 1
            case .receivedLargeDelta:
                try require(.receiveDelta, offset + 2, fci.count)
                statuses[i] = .receivedLargeDelta(Int16(bitPattern: fci.u16(offset)))
                offset += 2
            }
        }
        senderSSRC = fb.senderSSRC
        mediaSSRC = fb.mediaSSRC
        baseSequenceNumber = fci.u16(0)
        referenceTime = fci.u24(4)
        feedbackPacketCount = fci[7]
    }

    /// A status with the symbol's delta size and a zero delta (filled in once the deltas are read).
    private static func placeholder(symbol: UInt8) throws(RTPError) -> PacketStatus {
        switch symbol {
        case 0: return .notReceived
        case 1: return .receivedSmallDelta(0)
        case 2: return .receivedLargeDelta(0)
        default: throw .invalidField(.packetStatusChunk, field: "packet status symbol", value: Int(symbol))
        }
    }

    public var serializedLength: Int {
        var chunks = 0
        var encoder = RTCPTransportWideFeedbackBuilder.ChunkEncoder()
        for status in statuses {
            while !encoder.canAdd(status.symbol) { _ = encoder.emit(); chunks += 1 }
            encoder.add(status.symbol)
        }
        if encoder.count > 0 { chunks += 1 }
        let deltas = statuses.reduce(0) { n, s in
            switch s {
            case .notReceived: n
            case .receivedSmallDelta: n + 1
            case .receivedLargeDelta: n + 2
            }
        }
        return (RTCPFeedbackHeader.length + 8 + 2 * chunks + deltas + 3) & ~3
    }

    @discardableResult
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        guard statuses.count <= Self.maximumStatusCount else {
            throw .valueOutOfRange(field: "packet status count", value: statuses.count)
        }
        let length = serializedLength
        try requireSpace(length, buffer)
        var deltas = [UInt8](repeating: 0, count: 2 * statuses.count + 2)
        return try withMutableBytes(of: &deltas) { (scratch) throws(RTPError) -> Int in
            var builder = try RTCPTransportWideFeedbackBuilder(
                into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<length]), deltaScratch: scratch,
                senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, baseSequenceNumber: baseSequenceNumber,
                referenceTime: referenceTime, feedbackPacketCount: feedbackPacketCount)
            for status in statuses {
                guard builder.add(status) else { throw .bufferTooSmall(needed: length + 4, available: length) }
            }
            return try builder.finish()
        }
    }
}
