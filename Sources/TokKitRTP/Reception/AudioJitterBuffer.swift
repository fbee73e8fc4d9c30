/// A small playout buffer for audio packets (Opus over RTP, RFC 7587), ordered by sequence number.
///
/// The network thread calls ``insert(sequenceNumber:timestamp:payload:)`` for every packet; the audio thread calls
/// ``pop()`` once per frame interval and gets the next packet, ``Output/missing(sequenceNumber:following:)`` when
/// that packet is lost while later ones are here (decode Opus in-band FEC from `following`, or conceal), or
/// ``Output/empty`` when there is nothing to play (pre-roll, underrun, DTX: play silence or conceal).
///
/// Delay: playout starts (and restarts after an underrun) once ``Configuration/targetDelay`` worth of packets is
/// buffered; when more than ``Configuration/maximumDelay`` accumulates (a burst after a stall, a clock running
/// fast) the oldest packets are discarded down to the target. Late packets (older than the playout point) and
/// duplicates are dropped. A packet far ahead of the window (a big gap, a sender restart) resynchronizes the buffer
/// on it, as does a long run of packets that all look late (sequence numbers restarted backwards).
///
/// Memory: ``Configuration/capacity`` slots of ``Configuration/maximumPacketSize`` bytes, allocated at init; insert
/// copies into a slot, nothing is allocated per packet. Threading: not thread-safe. Guard an instance with a lock
/// (a `Mutex`) when the network and audio threads share it; both calls are short and never block.
public final class AudioJitterBuffer {
    /// Bounds and delays of a buffer.
    public struct Configuration: Hashable, Sendable {
        /// Slots (packets held), at least the maximum delay in packets.
        public var capacity: Int
        /// Largest payload accepted.
        public var maximumPacketSize: Int
        /// Duration of one packet: ``AudioJitterBuffer/pop()`` is called once per frame interval.
        public var frameDuration: Duration
        /// Delay playout starts with. Default 40 ms (two 20 ms packets).
        public var targetDelay: Duration
        /// Delay above which old packets are discarded. Default 120 ms.
        public var maximumDelay: Duration

        public init(capacity: Int = 32, maximumPacketSize: Int = 1500, frameDuration: Duration = .milliseconds(20),
                    targetDelay: Duration = .milliseconds(40), maximumDelay: Duration = .milliseconds(120)) {
            self.capacity = capacity
            self.maximumPacketSize = maximumPacketSize
            self.frameDuration = frameDuration
            self.targetDelay = targetDelay
            self.maximumDelay = maximumDelay
        }
    }

    /// One buffered packet; ``bytes`` is valid until the next call to any method of the buffer.
    public struct Packet {
        public let bytes: UnsafeRawBufferPointer
        public let sequenceNumber: UInt16
        public let timestamp: UInt32
        /// Whether it came as a redundant copy (``insertRedundant(sequenceNumber:timestamp:payload:)``), its own packet
        /// lost: a recovery, for statistics.
        public let isRedundant: Bool
    }

    /// What ``pop()`` returns.
    public enum Output {
        /// The next packet to decode.
        case packet(Packet)
        /// Packet `sequenceNumber` is lost; `following` is the next one when it is here (for Opus FEC). It stays
        /// buffered and comes out of the next ``AudioJitterBuffer/pop()``.
        case missing(sequenceNumber: UInt16, following: Packet?)
        /// Nothing to play this interval (pre-roll, underrun or discontinuous transmission).
        case empty
        /// Playing, but held back one interval to add delay (``setExtraDelay(packets:)``): play something made up
        /// (Opus concealment continues the sound); the next packet waits.
        case hold
    }

    /// What ``insert(sequenceNumber:timestamp:payload:)`` did.
    public enum Insertion: Hashable, Sendable {
        case stored
        /// Already buffered.
        case duplicate
        /// Older than the playout point (or than the window): dropped.
        case late
        /// Far from the window: everything buffered was dropped and playout restarts from this packet.
        case resynchronized
    }

    /// Running counts, for statistics.
    public struct Counters: Hashable, Sendable {
        public var packetsStored = 0
        public var packetsDuplicate = 0
        public var packetsLate = 0
        /// Packets discarded to bring the delay back to the target.
        public var packetsDiscarded = 0
        /// ``Output/missing(sequenceNumber:following:)`` results.
        public var packetsMissing = 0
        /// Times playout ran dry and went back to pre-roll.
        public var underruns = 0
        public var resynchronizations = 0
        /// Redundant copies stored in place of a packet that had not arrived
        /// (``insertRedundant(sequenceNumber:timestamp:payload:)``).
        public var packetsRedundantStored = 0
        /// ``Output/hold`` results, and packets skipped, to follow ``setExtraDelay(packets:)``.
        public var holds = 0
        public var packetsSkipped = 0
        public init() {}
    }

    private struct Slot {
        var sequence: Int64?
        var timestamp: UInt32 = 0
        var length = 0
        var redundant = false
    }

    public let configuration: Configuration
    public private(set) var counters = Counters()
    /// Packets currently buffered.
    public private(set) var count = 0
    /// Packets buffered before playout starts.
    public let targetPackets: Int
    /// Packets buffered above which the oldest are discarded.
    public let maximumPackets: Int

    private let slots: UnsafeMutableBufferPointer<Slot>
    private let storage: UnsafeMutableRawBufferPointer
    private var unwrapper = SequenceNumberUnwrapper()
    /// The next sequence number to play (a lower bound while pre-rolling); nil before the first packet.
    private var next: Int64?
    private var newest: Int64 = 0
    private var playing = false
    private var hasPlayed = false
    private var consecutiveLate = 0
    /// Extra delay asked for (``setExtraDelay(packets:)``), and what playout still has to add (positive: holds) or
    /// take off (negative: skips); one adjustment per ``adjustmentSpacing`` intervals at most.
    public private(set) var extraPackets = 0
    private var pendingAdjustment = 0
    private var popsSinceAdjustment = 0
    /// Intervals between two holds or skips (200 ms of 20 ms packets): a change is spread out, not heard at once.
    public static let adjustmentSpacing = 10

    /// Throws ``RTPError/valueOutOfRange(field:value:)`` when the delays or sizes do not fit together.
    public init(_ configuration: Configuration = Configuration()) throws(RTPError) {
        func nanoseconds(_ d: Duration) -> Int64 {
            d.components.seconds &* 1_000_000_000 &+ d.components.attoseconds / 1_000_000_000
        }
        let frame = nanoseconds(configuration.frameDuration)
        guard frame > 0 else { throw .valueOutOfRange(field: "jitter buffer frame duration", value: Int(frame)) }
        let target = max(1, Int((max(0, nanoseconds(configuration.targetDelay)) + frame - 1) / frame))
        let maximum = max(target + 1, Int(max(0, nanoseconds(configuration.maximumDelay)) / frame))
        guard configuration.capacity >= maximum, configuration.capacity <= 4096 else {
            throw .valueOutOfRange(field: "jitter buffer capacity", value: configuration.capacity)
        }
        guard configuration.maximumPacketSize >= 1 else {
            throw .valueOutOfRange(field: "jitter buffer packet size", value: configuration.maximumPacketSize)
        }
        self.configuration = configuration
        targetPackets = target
        maximumPackets = maximum
        slots = .allocate(capacity: configuration.capacity)
        slots.initialize(repeating: Slot())
        storage = .allocate(byteCount: configuration.capacity * configuration.maximumPacketSize, alignment: 8)
    }

    deinit {
        slots.deallocate()
        storage.deallocate()
    }

    /// Copies one packet's payload in. Throws for an empty payload or one larger than
    /// ``Configuration/maximumPacketSize``.
    @discardableResult
    public func insert(sequenceNumber: UInt16, timestamp: UInt32,
                       payload: UnsafeRawBufferPointer) throws(RTPError) -> Insertion {
        try checkLength(of: payload)
        let sequence = unwrapper.unwrap(sequenceNumber)
        let capacity = Int64(configuration.capacity)
        guard let start = next else {
            next = sequence
            newest = sequence
            return store(sequence, timestamp, payload)
        }
        if sequence < start {
            if !hasPlayed && sequence > newest - capacity {
                next = sequence  // reordered before playout ever started: widen the pre-roll backwards
            } else {
                counters.packetsLate += 1
                consecutiveLate += 1
                guard consecutiveLate > configuration.capacity else { return .late }
                resynchronize(at: sequenceNumber)
                _ = store(unwrapper.unwrap(sequenceNumber), timestamp, payload)
                return .resynchronized
            }
        }
        consecutiveLate = 0
        if sequence >= next! + capacity {
            resynchronize(at: nil)
            next = sequence
            newest = sequence
            _ = store(sequence, timestamp, payload)
            return .resynchronized
        }
        if slots[index(sequence)].sequence == sequence {
            counters.packetsDuplicate += 1
            return .duplicate
        }
        if sequence > newest { newest = sequence }
        return store(sequence, timestamp, payload)
    }

    /// Copies a redundant copy of packet `sequenceNumber` in (a block of an RFC 2198 payload), only when that packet
    /// is still to be played, inside the window and not here: the packet itself was lost or is late. Never
    /// resynchronizes, counts nothing late or duplicate (most copies are of packets already here or played), and
    /// returns whether it was stored. Throws as ``insert(sequenceNumber:timestamp:payload:)`` for a bad length.
    @discardableResult
    public func insertRedundant(sequenceNumber: UInt16, timestamp: UInt32,
                                payload: UnsafeRawBufferPointer) throws(RTPError) -> Bool {
        try checkLength(of: payload)
        guard let start = next else { return false }
        // Only around what is already known: never moves the window (unwrapping against the newest packet).
        let sequence = newest + Int64(RTPSequenceNumber.distance(from: UInt16(truncatingIfNeeded: newest),
                                                                 to: sequenceNumber))
        guard sequence >= start, sequence < newest, sequence > newest - Int64(configuration.capacity),
              slots[index(sequence)].sequence != sequence
        else { return false }
        _ = store(sequence, timestamp, payload, redundant: true)
        counters.packetsStored -= 1
        counters.packetsRedundantStored += 1
        return true
    }

    /// Sets how many packets of delay playout keeps beyond ``targetPackets`` (lip sync: the audio waiting for the
    /// video), clamped to what the capacity allows. Playout follows by holding (``Output/hold``) or skipping one
    /// packet at a time, at most once every ``adjustmentSpacing`` intervals; a new pre-roll (after an underrun)
    /// starts with it at once.
    public func setExtraDelay(packets: Int) {
        let limit = max(0, configuration.capacity - maximumPackets - 1)
        let value = min(max(packets, 0), limit)
        pendingAdjustment += value - extraPackets
        extraPackets = value
    }

    /// The output for this frame interval.
    public func pop() -> Output {
        guard var position = next else { return .empty }
        popsSinceAdjustment += 1
        if !playing {
            guard count >= targetPackets + extraPackets else { return .empty }
            pendingAdjustment = 0  // the pre-roll already waits for the extra delay
            // Start with the oldest buffered packet.
            while position <= newest && slots[index(position)].sequence != position { position += 1 }
            playing = true
            hasPlayed = true
        }
        // Follow a change of the extra delay, one packet at a time.
        if pendingAdjustment != 0, playing, popsSinceAdjustment >= Self.adjustmentSpacing {
            if pendingAdjustment > 0 {
                pendingAdjustment -= 1
                popsSinceAdjustment = 0
                counters.holds += 1
                return .hold
            }
            if newest - position >= 1 {  // something stays to play after the skipped one
                if release(position) { counters.packetsSkipped += 1 }
                position += 1
                pendingAdjustment += 1
                popsSinceAdjustment = 0
            }
        }
        // Too much delay: drop the oldest down to the target, plus the extra delay in effect now (a change still
        // being followed stays to the holds and skips: a cut to the new value here would take it off twice).
        let extraInEffect = max(0, extraPackets - pendingAdjustment)
        if newest - position + 1 > Int64(maximumPackets + extraInEffect) {
            let keep = newest - Int64(targetPackets + extraInEffect) + 1
            while position < keep {
                if release(position) { counters.packetsDiscarded += 1 }
                position += 1
            }
        }
        if position > newest {
            next = position
            playing = false
            counters.underruns += 1
            return .empty
        }
        next = position + 1
        if let packet = take(position) { return .packet(packet) }
        counters.packetsMissing += 1
        return .missing(sequenceNumber: UInt16(truncatingIfNeeded: position), following: peek(position + 1))
    }

    // MARK: - Internals

    /// Throws for an empty payload or one larger than ``Configuration/maximumPacketSize``.
    private func checkLength(of payload: UnsafeRawBufferPointer) throws(RTPError) {
        try require(.payload, 1, payload.count)
        guard payload.count <= configuration.maximumPacketSize else {
            throw .invalidField(.payload, field: "audio packet length", value: payload.count)
        }
    }

    @inline(__always)
    private func index(_ sequence: Int64) -> Int {
        let capacity = Int64(configuration.capacity)
        return Int(((sequence % capacity) + capacity) % capacity)
    }

    private func store(_ sequence: Int64, _ timestamp: UInt32, _ payload: UnsafeRawBufferPointer,
                       redundant: Bool = false) -> Insertion {
        let i = index(sequence)
        if slots[i].sequence != nil { count -= 1 }  // a stale packet outside the window
        storage.put(payload, at: i * configuration.maximumPacketSize)
        slots[i] = Slot(sequence: sequence, timestamp: timestamp, length: payload.count, redundant: redundant)
        count += 1
        counters.packetsStored += 1
        return .stored
    }

    private func peek(_ sequence: Int64) -> Packet? {
        let slot = slots[index(sequence)]
        guard slot.sequence == sequence else { return nil }
        return Packet(bytes: UnsafeRawBufferPointer(storage).slice(index(sequence) * configuration.maximumPacketSize,
                                                                   slot.length),
                      sequenceNumber: UInt16(truncatingIfNeeded: sequence), timestamp: slot.timestamp,
                      isRedundant: slot.redundant)
    }

    private func take(_ sequence: Int64) -> Packet? {
        guard let packet = peek(sequence) else { return nil }
        _ = release(sequence)
        return packet
    }

    /// Empties the slot of `sequence` if it holds it.
    private func release(_ sequence: Int64) -> Bool {
        let i = index(sequence)
        guard slots[i].sequence == sequence else { return false }
        slots[i].sequence = nil
        count -= 1
        return true
    }

    /// Drops everything; with `restart`, also forgets the sequence number history (a sender restart).
    private func resynchronize(at restart: UInt16?) {
        for i in slots.indices { slots[i].sequence = nil }
        count = 0
        playing = false
        consecutiveLate = 0
        counters.resynchronizations += 1
        if let restart {
            unwrapper = SequenceNumberUnwrapper()
            let sequence = unwrapper.unwrap(restart)
            next = sequence
            newest = sequence
        }
    }
}
