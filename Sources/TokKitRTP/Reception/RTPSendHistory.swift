/// The last packets a sender sent, kept for retransmission on NACK (RFC 4585 §6.2.1, RFC 4588 §3 without RTX).
///
/// ``store(_:)`` copies a whole unprotected RTP packet (header included) into the slot of its sequence number;
/// ``packet(sequenceNumber:)`` finds it again while it has not been overwritten, i.e. for the last ``capacity``
/// packets (512 by default: about a second of 4 Mbps video). Slots are allocated at init: nothing is allocated per
/// packet. It also remembers when each packet was last sent again (``markResent(sequenceNumber:at:)``), so a sender
/// can refuse to send one packet again within a round trip, and whether it was asked for
/// (``markRequested(sequenceNumber:)``), so a sender can count the packets lost, not the requests. Threading: not
/// thread-safe; use it under the sender's lock (the send path stores, the RTCP receive path looks up).
public final class RTPSendHistory {
    /// Packets kept.
    public let capacity: Int
    /// Largest packet kept.
    public let maximumPacketSize: Int
    private let sequences: UnsafeMutableBufferPointer<Int32>
    private let lengths: UnsafeMutableBufferPointer<Int>
    /// When the slot's packet was last sent again (any monotonic clock; 0: never).
    private let resentAt: UnsafeMutableBufferPointer<UInt64>
    /// Whether the slot's packet was asked for.
    private let requested: UnsafeMutableBufferPointer<Bool>
    private let storage: UnsafeMutableRawBufferPointer

    /// Throws ``RTPError/valueOutOfRange(field:value:)`` for a capacity outside 1...32768 or a packet size below an
    /// RTP header.
    public init(capacity: Int = 512, maximumPacketSize: Int = 1500) throws(RTPError) {
        guard capacity >= 1, capacity <= 32_768 else {
            throw .valueOutOfRange(field: "send history capacity", value: capacity)
        }
        guard maximumPacketSize >= RTPPacketView.fixedHeaderLength else {
            throw .valueOutOfRange(field: "send history packet size", value: maximumPacketSize)
        }
        self.capacity = capacity
        self.maximumPacketSize = maximumPacketSize
        sequences = .allocate(capacity: capacity)
        sequences.initialize(repeating: -1)
        lengths = .allocate(capacity: capacity)
        lengths.initialize(repeating: 0)
        resentAt = .allocate(capacity: capacity)
        resentAt.initialize(repeating: 0)
        requested = .allocate(capacity: capacity)
        requested.initialize(repeating: false)
        storage = .allocate(byteCount: capacity * maximumPacketSize, alignment: 8)
    }

    deinit {
        sequences.deallocate()
        lengths.deallocate()
        resentAt.deallocate()
        requested.deallocate()
        storage.deallocate()
    }

    /// Keeps a copy of `packet`, an RTP packet before SRTP protection; its sequence number is read from the header.
    /// Throws when it is shorter than an RTP header or longer than ``maximumPacketSize``.
    public func store(_ packet: UnsafeRawBufferPointer) throws(RTPError) {
        try require(.rtpHeader, RTPPacketView.fixedHeaderLength, packet.count)
        guard packet.count <= maximumPacketSize else { throw .bufferTooSmall(needed: packet.count, available: maximumPacketSize) }
        let sequence = packet.u16(2)
        let i = Int(sequence) % capacity
        storage.put(packet, at: i * maximumPacketSize)
        sequences[i] = Int32(sequence)
        lengths[i] = packet.count
        resentAt[i] = 0
        requested[i] = false
    }

    /// Notes that the packet with `sequenceNumber` was asked for; true the first time for a packet held.
    public func markRequested(sequenceNumber: UInt16) -> Bool {
        let i = Int(sequenceNumber) % capacity
        guard sequences[i] == Int32(sequenceNumber), !requested[i] else { return false }
        requested[i] = true
        return true
    }

    /// When the packet with `sequenceNumber` was last sent again (as given to ``markResent(sequenceNumber:at:)``);
    /// nil if it has not been, or is not held.
    public func lastResent(sequenceNumber: UInt16) -> UInt64? {
        let i = Int(sequenceNumber) % capacity
        guard sequences[i] == Int32(sequenceNumber), resentAt[i] != 0 else { return nil }
        return resentAt[i]
    }

    /// Notes that the packet with `sequenceNumber` was sent again at `now` (nonzero); nothing if it is not held.
    public func markResent(sequenceNumber: UInt16, at now: UInt64) {
        let i = Int(sequenceNumber) % capacity
        guard sequences[i] == Int32(sequenceNumber) else { return }
        resentAt[i] = max(now, 1)
    }

    /// The stored packet with `sequenceNumber`, or nil if it was never stored or has been overwritten. Valid until
    /// the next ``store(_:)``.
    public func packet(sequenceNumber: UInt16) -> UnsafeRawBufferPointer? {
        let i = Int(sequenceNumber) % capacity
        guard sequences[i] == Int32(sequenceNumber) else { return nil }
        return UnsafeRawBufferPointer(storage).slice(i * maximumPacketSize, lengths[i])
    }

    /// Forgets every packet.
    public func removeAll() {
        for i in sequences.indices { sequences[i] = -1; resentAt[i] = 0; requested[i] = false }
    }
}
