/// Puts a recorded Opus stream's packets back in sequence order when the network swapped a few: a packet that
/// arrives after its successor is placed, not dropped as late.
///
/// Packets in order go straight through (``insert(sequenceNumber:timestamp:payload:emit:)`` emits them at once).
/// A packet that comes after a gap (one or more sequence numbers missing) is held, up to ``slots`` of them (60 ms
/// of 20 ms packets by default), while the missing ones may still come: each one that does is emitted, followed by
/// the held packets it makes consecutive. Once more than ``slots`` packets would have to wait, the missing ones are
/// given up (lost) and everything held is emitted in order. A packet older than what was emitted (late beyond the
/// window, or a duplicate) is emitted as it is: the caller's timeline drops it. ``flush(emit:)`` emits what is held
/// (before the file is closed, or when the stream restarts).
///
/// Memory: ``slots`` payloads of ``maximumPacketSize`` bytes allocated at init; nothing is allocated per packet.
/// Threading: not thread-safe (one stream's receive thread).
public final class OpusReorderWindow {
    /// Running counts.
    public struct Counters: Hashable, Sendable {
        /// Packets held after a gap and emitted once it was filled or given up.
        public var packetsHeld = 0
        /// Missing packets that arrived while later ones were held (placed instead of dropped).
        public var gapsFilled = 0
        /// Missing packets given up on (lost, or later than the window).
        public var gapsGivenUp = 0
        /// Duplicates of a held packet, dropped.
        public var duplicatesDropped = 0
        /// A counters value with nothing counted.
        public init() {}
    }

    /// Packets held at most.
    public let slots: Int
    /// Largest payload held (a larger one after a gap ends the wait: emitted at once, after what is held).
    public let maximumPacketSize: Int
    /// Counts so far.
    public private(set) var counters = Counters()

    private struct Slot {
        var sequenceNumber: UInt16 = 0
        var timestamp: UInt32 = 0
        var length = 0
        var used = false
    }

    private var held: [Slot]
    private var heldCount = 0
    private let storage: UnsafeMutableRawBufferPointer
    /// The sequence number that would come next in order; `nil` before the first packet.
    private var expected: UInt16?

    /// A window of `slots` packets (1...64) of at most `maximumPacketSize` bytes.
    public init(slots: Int = 3, maximumPacketSize: Int = 1500) {
        precondition((1...64).contains(slots) && maximumPacketSize > 0, "reorder window bounds")
        self.slots = slots
        self.maximumPacketSize = maximumPacketSize
        held = Array(repeating: Slot(), count: slots)
        storage = .allocate(byteCount: slots * maximumPacketSize, alignment: 8)
    }

    deinit { storage.deallocate() }

    /// Takes one packet; `emit` gets each packet now in order (payload and RTP timestamp): none, this one, or
    /// several. Rethrows `emit`'s error (what was not emitted yet stays held).
    public func insert(sequenceNumber: UInt16, timestamp: UInt32, payload: UnsafeRawBufferPointer,
                       emit: (UnsafeRawBufferPointer, UInt32) throws(RecordingError) -> Void) throws(RecordingError) {
        guard let next = expected else {
            expected = sequenceNumber &+ 1
            try emit(payload, timestamp)
            return
        }
        let ahead = Int(Int16(bitPattern: sequenceNumber &- next))
        if ahead < 0 {
            try emit(payload, timestamp)  // late or a duplicate: the caller's timeline judges
            return
        }
        if ahead == 0 {
            if heldCount > 0 { counters.gapsFilled += 1 }
            expected = sequenceNumber &+ 1
            try emit(payload, timestamp)
            try drain(emit)
            return
        }
        if slot(of: sequenceNumber) != nil {
            counters.duplicatesDropped += 1
            return
        }
        if ahead > slots || payload.count > maximumPacketSize || heldCount == slots {
            // Too much would wait: the missing packets are given up.
            try flush(emit: emit)
            counters.gapsGivenUp += max(0, Int(Int16(bitPattern: sequenceNumber &- (expected ?? sequenceNumber))))
            expected = sequenceNumber &+ 1
            try emit(payload, timestamp)
            return
        }
        let i = held.firstIndex { !$0.used }!  // heldCount < slots
        storage.baseAddress!.advanced(by: i * maximumPacketSize)
            .copyMemory(from: payload.baseAddress!, byteCount: payload.count)
        held[i] = Slot(sequenceNumber: sequenceNumber, timestamp: timestamp, length: payload.count, used: true)
        heldCount += 1
        counters.packetsHeld += 1
    }

    /// Emits everything held, in sequence order, giving up the missing packets between.
    public func flush(emit: (UnsafeRawBufferPointer, UInt32) throws(RecordingError) -> Void) throws(RecordingError) {
        while heldCount > 0, let next = expected {
            // The held packet nearest after the expected one.
            var best = -1, bestAhead = Int.max
            for i in held.indices where held[i].used {
                let ahead = Int(Int16(bitPattern: held[i].sequenceNumber &- next))
                if ahead < bestAhead { best = i; bestAhead = ahead }
            }
            counters.gapsGivenUp += max(0, bestAhead)
            expected = held[best].sequenceNumber
            try drain(emit)
        }
    }

    /// Forgets everything held and the sequence (a restarted stream).
    public func reset() {
        for i in held.indices { held[i].used = false }
        heldCount = 0
        expected = nil
    }

    /// Emits the held packets that follow `expected` without a gap.
    private func drain(_ emit: (UnsafeRawBufferPointer, UInt32) throws(RecordingError) -> Void) throws(RecordingError) {
        while heldCount > 0, let next = expected, let i = slot(of: next) {
            held[i].used = false
            heldCount -= 1
            expected = next &+ 1
            let bytes = UnsafeRawBufferPointer(start: storage.baseAddress!.advanced(by: i * maximumPacketSize),
                                               count: held[i].length)
            try emit(bytes, held[i].timestamp)
        }
    }

    private func slot(of sequenceNumber: UInt16) -> Int? {
        held.indices.first { held[$0].used && held[$0].sequenceNumber == sequenceNumber }
    }
}
