/// A small fixed-delay jitter buffer for one Opus stream: packets in by RTP sequence number (any order,
/// duplicates ignored), one 20 ms packet out per playout step, with losses reported so the decoder can
/// conceal them (with the next packet's FEC when it is already here).
///
/// Interim: TokKitStreaming's own until TokKitRTP's adaptive `AudioJitterBuffer` is merged.
///
/// Playout starts once ``startDepth`` packets are buffered and restarts the same way after running dry. A
/// packet older than the playout point is late and dropped; one further ahead than ``capacity`` resets the
/// buffer to it. Storage is ``capacity`` preallocated slots; nothing is allocated per packet. Not thread-safe:
/// ``AudioReceivePipeline`` keeps it behind a lock, which is what makes `@unchecked Sendable` sound.
struct AudioJitterBuffer: ~Copyable, @unchecked Sendable {
    /// What the next playout step plays.
    enum Playout {
        /// The packet for this step, valid until the next call.
        case packet(UnsafeRawBufferPointer)
        /// This step's packet is missing; `next` is the following one when it is already here (FEC source).
        case missing(next: UnsafeRawBufferPointer?)
    }

    /// Slots (a power of two): 16 × 20 ms.
    static let capacity = 16
    /// Packets buffered before playout (re)starts: 40 ms.
    static let startDepth = 2
    static let slotBytes = 1_500

    private let storage: UnsafeMutableRawBufferPointer
    private var lengths = [Int](repeating: -1, count: capacity)  // -1: empty
    private var sequence = [UInt16](repeating: 0, count: capacity)
    /// The sequence number the next playout step plays, once playing.
    private var playout: UInt16?
    /// The newest sequence number received.
    private var newest: UInt16?
    private(set) var latePackets = 0

    init() {
        storage = .allocate(byteCount: Self.capacity * Self.slotBytes, alignment: 16)
    }

    deinit { storage.deallocate() }

    /// Stores a packet; false when it is late, a duplicate, empty or too large.
    mutating func insert(sequenceNumber: UInt16, timestamp: UInt32, payload: UnsafeRawBufferPointer) -> Bool {
        guard !payload.isEmpty, payload.count <= Self.slotBytes else { return false }
        if let playout, Int16(bitPattern: sequenceNumber &- playout) < 0 {
            latePackets += 1
            return false
        }
        if let start = playout ?? oldestBuffered(), Int16(bitPattern: sequenceNumber &- start) >= Int16(Self.capacity) {
            reset()  // a jump (or a very long gap): start over from this packet
        }
        let slot = Int(sequenceNumber) & (Self.capacity - 1)
        if lengths[slot] >= 0, sequence[slot] == sequenceNumber { return false }
        UnsafeMutableRawBufferPointer(rebasing: storage[(slot * Self.slotBytes)...]).copyMemory(from: payload)
        lengths[slot] = payload.count
        sequence[slot] = sequenceNumber
        if newest.map({ Int16(bitPattern: sequenceNumber &- $0) > 0 }) ?? true { newest = sequenceNumber }
        return true
    }

    /// The next step's packet or loss; nil when there is nothing to play (not started, or ran dry).
    mutating func next() -> Playout? {
        guard let newest else { return nil }
        if playout == nil {
            guard let oldest = oldestBuffered(), Int(newest &- oldest) + 1 >= Self.startDepth else { return nil }
            playout = oldest
        }
        guard let current = playout else { return nil }
        if Int16(bitPattern: newest &- current) < 0 {  // played everything: buffer again
            playout = nil
            return nil
        }
        playout = current &+ 1
        let slot = Int(current) & (Self.capacity - 1)
        if lengths[slot] >= 0, sequence[slot] == current {
            let length = lengths[slot]
            lengths[slot] = -1
            return .packet(UnsafeRawBufferPointer(rebasing: storage[(slot * Self.slotBytes)..<(slot * Self.slotBytes + length)]))
        }
        let nextSlot = Int(current &+ 1) & (Self.capacity - 1)
        if lengths[nextSlot] >= 0, sequence[nextSlot] == current &+ 1 {
            let start = nextSlot * Self.slotBytes
            return .missing(next: UnsafeRawBufferPointer(rebasing: storage[start..<(start + lengths[nextSlot])]))
        }
        return .missing(next: nil)
    }

    /// The lowest buffered sequence number (relative to the newest), if any.
    private func oldestBuffered() -> UInt16? {
        guard let newest else { return nil }
        var oldest: UInt16?
        for slot in 0..<Self.capacity where lengths[slot] >= 0 {
            let s = sequence[slot]
            if oldest.map({ Int16(bitPattern: s &- $0) < 0 }) ?? true, Int16(bitPattern: newest &- s) >= 0 { oldest = s }
        }
        return oldest
    }

    private mutating func reset() {
        for slot in 0..<Self.capacity { lengths[slot] = -1 }
        playout = nil
        newest = nil
    }
}
