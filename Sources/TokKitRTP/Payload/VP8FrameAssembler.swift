/// Reassembles VP8 frames from RTP payloads (RFC 7741 §4.4, §4.5): the receive side of ``VP8Packetizer``.
///
/// Feed every received VP8 packet to ``insert(sequenceNumber:timestamp:marker:payload:)`` in arrival order, in any
/// sequence order, duplicates and retransmissions included; after each insert call ``next()`` until it returns
/// `nil`. Frames come out in sequence order as contiguous VP8 bytes (descriptors removed), ready for the decoder.
/// A frame is complete when its packets, from the one that starts it (S = 1, PID = 0) to the one with the marker
/// bit, are all present with one timestamp; a frame is never emitted with a packet missing.
///
/// Loss: a frame still incomplete when a packet ``Configuration/maximumWait`` RTP ticks newer arrives (enough for
/// NACK retransmissions to land), or when newer packets would overflow the window of
/// ``Configuration/maximumPackets``, is given up. VP8 delta frames depend on their predecessor, so after a loss (and
/// at start) the assembler skips to the next key frame, dropping delta frames, and ``Event/keyFrameNeeded`` asks
/// the caller to send a PLI (repeated while the wait lasts, no more than once per
/// ``Configuration/keyFrameRequestInterval`` of RTP time). A complete key frame later in the window ends the wait
/// for an incomplete frame at once.
///
/// A packet with an empty payload (RFC 3550 §5.1 padding only, as libwebrtc sends to probe bandwidth when no RTX is
/// negotiated) holds its sequence number so that the frame after it is not taken for one after a loss.
///
/// Memory is bounded and allocated once at init: `maximumPackets` slots of `maximumPacketPayload` bytes, one output
/// buffer of `maximumFrameSize`. Lengths come from the caller's buffer only; nothing is trusted from the payload.
/// Nothing is allocated per packet or frame. Threading: not thread-safe; use an instance from one thread (the
/// receive/network thread, or a media thread fed by it).
public final class VP8FrameAssembler {
    /// Bounds and timing of an assembler.
    public struct Configuration: Hashable, Sendable {
        /// Packets held at once (the reordering window), at least 2.
        public var maximumPackets: Int
        /// Largest VP8 payload (after the descriptor) of one packet.
        public var maximumPacketPayload: Int
        /// Largest frame emitted; a larger frame counts as lost.
        public var maximumFrameSize: Int
        /// RTP ticks (90 kHz) an incomplete frame may wait for missing packets, measured against the newest
        /// timestamp received. Default 200 ms.
        public var maximumWait: UInt32
        /// Least RTP time between two ``Event/keyFrameNeeded`` events. Default 300 ms.
        public var keyFrameRequestInterval: UInt32

        public init(maximumPackets: Int = 512, maximumPacketPayload: Int = 1500, maximumFrameSize: Int = 512 * 1024,
                    maximumWait: UInt32 = 18_000, keyFrameRequestInterval: UInt32 = 27_000) {
            self.maximumPackets = maximumPackets
            self.maximumPacketPayload = maximumPacketPayload
            self.maximumFrameSize = maximumFrameSize
            self.maximumWait = maximumWait
            self.keyFrameRequestInterval = keyFrameRequestInterval
        }
    }

    /// One reassembled frame. ``bytes`` points into the assembler's output buffer and is valid until the next call
    /// to ``insert(sequenceNumber:timestamp:marker:payload:)``, ``next()`` or ``reset()``.
    public struct Frame {
        /// The VP8 frame (RFC 6386), starting with its payload header.
        public let bytes: UnsafeRawBufferPointer
        public let timestamp: UInt32
        public let isKeyFrame: Bool
        /// The picture ID of the first packet's descriptor, if it had one.
        public let pictureID: UInt16?
        public let firstSequenceNumber: UInt16
        public let lastSequenceNumber: UInt16
        public var packetCount: Int { Int(lastSequenceNumber &- firstSequenceNumber) + 1 }
        /// The frame's payload header (key frame dimensions included), parsed from ``bytes``.
        public var header: VP8PayloadHeader? { try? VP8PayloadHeader(parsing: bytes) }
    }

    /// What ``next()`` reports.
    public enum Event {
        /// A complete frame, in decode order.
        case frame(Frame)
        /// A frame was lost or dropped while no key frame has followed: send a PLI (RFC 4585 §6.3.1).
        case keyFrameNeeded
    }

    /// What ``insert(sequenceNumber:timestamp:marker:payload:)`` did with a packet.
    public enum Insertion: Hashable, Sendable {
        /// Kept in the window.
        case stored
        /// That sequence number is already held: a duplicate or a redundant retransmission.
        case duplicate
        /// Older than the window: its frame was already emitted or given up.
        case late
    }

    /// Running counts, for statistics.
    public struct Counters: Hashable, Sendable {
        public var framesAssembled = 0
        /// Times a frame was given up because a packet did not arrive in time (or it was malformed or too large),
        /// or a run of incomplete frames was skipped for a complete key frame.
        public var framesLost = 0
        /// Complete delta frames dropped while waiting for a key frame.
        public var framesDropped = 0
        public var keyFrameRequests = 0
        public var packetsDuplicate = 0
        public var packetsLate = 0
        /// Packets rejected by ``insert(sequenceNumber:timestamp:marker:payload:)`` with an error.
        public var packetsInvalid = 0
        public init() {}
    }

    private struct Slot {
        /// Extended sequence number, `nil` when empty.
        var sequence: Int64?
        var timestamp: UInt32 = 0
        var length = 0
        var marker = false
        var startsFrame = false
        var keyFrame = false
        var pictureID: UInt16?
        /// A padding-only packet (no payload): it only fills its sequence number.
        var padding = false
    }

    private enum Scan {
        case complete(end: Int64, length: Int)
        case incomplete
        case corrupt
    }

    public let configuration: Configuration
    public private(set) var counters = Counters()
    private let slots: UnsafeMutableBufferPointer<Slot>
    private let storage: UnsafeMutableRawBufferPointer
    private let output: UnsafeMutableRawBufferPointer
    private var unwrapper = SequenceNumberUnwrapper()
    /// Lowest sequence number held; when synchronized, the first packet of the next frame.
    private var windowStart: Int64?
    private var synchronized = false
    private var newest: Int64 = 0
    private var newestTimestamp: UInt32 = 0
    private var lastReleasedTimestamp: UInt32?
    private var latestKeyFrameStart: Int64?
    private var latestDeltaFrameStart: Int64?
    private var waitingForKeyFrame = true
    private var lastKeyFrameRequest: UInt32?
    private var keyFrameRequestPending = false
    private var consecutiveLate = 0

    /// Throws ``RTPError/valueOutOfRange(field:value:)`` for a bound below its minimum.
    public init(_ configuration: Configuration = Configuration()) throws(RTPError) {
        guard configuration.maximumPackets >= 2, configuration.maximumPackets <= 32_768 else {
            throw .valueOutOfRange(field: "VP8 assembler packet count", value: configuration.maximumPackets)
        }
        guard configuration.maximumPacketPayload >= 1 else {
            throw .valueOutOfRange(field: "VP8 assembler packet size", value: configuration.maximumPacketPayload)
        }
        guard configuration.maximumFrameSize >= 1 else {
            throw .valueOutOfRange(field: "VP8 assembler frame size", value: configuration.maximumFrameSize)
        }
        self.configuration = configuration
        slots = .allocate(capacity: configuration.maximumPackets)
        slots.initialize(repeating: Slot())
        storage = .allocate(byteCount: configuration.maximumPackets * configuration.maximumPacketPayload, alignment: 8)
        output = .allocate(byteCount: configuration.maximumFrameSize, alignment: 8)
    }

    deinit {
        slots.deallocate()
        storage.deallocate()
        output.deallocate()
    }

    /// Forgets every packet and starts over, waiting for a key frame (e.g. when the sender's SSRC changed).
    public func reset() {
        for i in slots.indices { slots[i].sequence = nil }
        unwrapper = SequenceNumberUnwrapper()
        windowStart = nil
        synchronized = false
        lastReleasedTimestamp = nil
        latestKeyFrameStart = nil
        latestDeltaFrameStart = nil
        waitingForKeyFrame = true
        keyFrameRequestPending = false
        lastKeyFrameRequest = nil
        consecutiveLate = 0
    }

    /// Inserts one packet's payload (the VP8 descriptor and what follows it). Throws (and counts the packet
    /// invalid) when the descriptor or a frame-starting payload header is malformed (a key frame start code is
    /// checked when the packet holds it), when nothing follows the descriptor, or when the VP8 data exceeds
    /// ``Configuration/maximumPacketPayload``.
    @discardableResult
    public func insert(sequenceNumber: UInt16, timestamp: UInt32, marker: Bool,
                       payload: UnsafeRawBufferPointer) throws(RTPError) -> Insertion {
        var descriptor: VP8PayloadDescriptor? = nil
        var keyFrame = false
        var dataOffset = 0, dataCount = 0
        // RFC 3550 §5.1: a packet with only padding (libwebrtc's bandwidth probes without RTX) takes a sequence
        // number between frames; it is kept so that the next frame does not look like it follows a lost packet.
        if !payload.isEmpty {
            do throws(RTPError) {
                let parsed = try VP8PayloadDescriptor(parsing: payload)
                dataOffset = parsed.serializedLength
                dataCount = payload.count - dataOffset
                try require(.vp8Frame, dataOffset + 1, payload.count)
                guard dataCount <= configuration.maximumPacketPayload else {
                    throw .invalidField(.vp8Frame, field: "packet payload length", value: dataCount)
                }
                if parsed.startsFrame {
                    // The 3-byte payload header may straddle packets with a tiny MTU; its P bit is in the first byte.
                    keyFrame = dataCount >= VP8PayloadHeader.length
                        ? try VP8PayloadHeader(parsing: payload.slice(dataOffset, dataCount)).isKeyFrame
                        : VP8PayloadHeader.isKeyFrame(firstByte: payload[dataOffset])
                }
                descriptor = parsed
            } catch {
                counters.packetsInvalid += 1
                throw error
            }
        }

        let sequence = unwrapper.unwrap(sequenceNumber)
        let capacity = Int64(configuration.maximumPackets)
        if windowStart == nil {
            windowStart = sequence
            newest = sequence
            newestTimestamp = timestamp
        }
        if sequence < windowStart! {
            // Before the first frame is found, a reordered earlier packet may still open the window.
            guard !synchronized, sequence > newest - capacity else {
                counters.packetsLate += 1
                consecutiveLate += 1
                // A long run of "late" packets is a sender that restarted its sequence numbers: start over.
                if consecutiveLate > configuration.maximumPackets {
                    reset()
                    return try insert(sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker,
                                      payload: payload)
                }
                return .late
            }
            windowStart = sequence
        }
        consecutiveLate = 0
        if sequence >= windowStart! + capacity { overflow(to: sequence - capacity + 1) }
        let index = self.index(sequence)
        if slots[index].sequence == sequence {
            counters.packetsDuplicate += 1
            return .duplicate
        }
        storage.put(payload.slice(dataOffset, dataCount), at: index * configuration.maximumPacketPayload)
        let startsFrame = descriptor?.startsFrame ?? false
        slots[index] = Slot(sequence: sequence, timestamp: timestamp, length: dataCount, marker: marker,
                            startsFrame: startsFrame, keyFrame: keyFrame, pictureID: descriptor?.pictureID?.value,
                            padding: descriptor == nil)
        if sequence > newest { newest = sequence }
        if RTPSequenceNumber.isNewer(timestamp, than: newestTimestamp) { newestTimestamp = timestamp }
        if startsFrame {
            if keyFrame {
                if sequence > (latestKeyFrameStart ?? .min) { latestKeyFrameStart = sequence }
            } else if sequence > (latestDeltaFrameStart ?? .min) {
                latestDeltaFrameStart = sequence
            }
        }
        return .stored
    }

    /// Inserts the payload of a parsed RTP packet.
    @discardableResult
    public func insert(_ packet: borrowing RTPPacketView) throws(RTPError) -> Insertion {
        try insert(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, marker: packet.marker,
                   payload: packet.payload)
    }

    /// The next complete frame or key frame request, `nil` when neither is ready. Call it until `nil` after every
    /// insert: packets of a complete frame not taken out may be given up when later packets overflow the window.
    public func next() -> Event? {
        // Each pass releases at least one packet or returns, so the window size bounds the loop.
        for _ in 0 ... configuration.maximumPackets + 1 {
            if keyFrameRequestPending {
                keyFrameRequestPending = false
                return .keyFrameNeeded
            }
            guard let start = windowStart else { return nil }
            if !synchronized {
                // Out of sync means waiting for a key frame: resume at the newest key frame start held.
                guard let key = latestKeyFrameStart, key >= start else {
                    if let delta = latestDeltaFrameStart, delta >= start { requestKeyFrame() }
                    if keyFrameRequestPending { continue }
                    return nil
                }
                release(from: start, to: key)
                windowStart = key
                synchronized = true
            }
            let begin = windowStart!
            if slots[index(begin)].sequence == begin && slots[index(begin)].padding {
                release(from: begin, to: begin + 1)  // padding between frames: step over it
                windowStart = begin + 1
                continue
            }
            switch scan(from: begin) {
            case let .complete(end, length):
                let first = slots[index(begin)]
                lastReleasedTimestamp = first.timestamp
                if waitingForKeyFrame && !first.keyFrame {
                    counters.framesDropped += 1
                    release(from: begin, to: end + 1)
                    windowStart = end + 1
                    requestKeyFrame()
                    continue
                }
                var offset = 0
                for sequence in begin ... end {
                    let slot = slots[index(sequence)]
                    output.put(UnsafeRawBufferPointer(storage).slice(index(sequence) * configuration.maximumPacketPayload,
                                                                    slot.length), at: offset)
                    offset += slot.length
                }
                release(from: begin, to: end + 1)
                windowStart = end + 1
                waitingForKeyFrame = false
                counters.framesAssembled += 1
                return .frame(Frame(
                    bytes: UnsafeRawBufferPointer(output).slice(0, length), timestamp: first.timestamp,
                    isKeyFrame: first.keyFrame, pictureID: first.pictureID,
                    firstSequenceNumber: UInt16(truncatingIfNeeded: begin),
                    lastSequenceNumber: UInt16(truncatingIfNeeded: end)))
            case .incomplete:
                if let key = latestKeyFrameStart, key > begin, case .complete = scan(from: key) {
                    // A complete key frame makes everything before it useless: skip there, no request needed.
                    counters.framesLost += 1
                    release(from: begin, to: key)
                    windowStart = key
                    waitingForKeyFrame = true
                    continue
                }
                let head = slots[index(begin)]
                guard let reference = head.sequence == begin ? head.timestamp : lastReleasedTimestamp,
                      Int64(Int32(bitPattern: newestTimestamp &- reference)) > Int64(configuration.maximumWait)
                else { return nil }
                giveUp(begin)
            case .corrupt:
                giveUp(begin)
            }
        }
        return nil
    }

    // MARK: - Internals

    @inline(__always)
    private func index(_ sequence: Int64) -> Int {
        let capacity = Int64(configuration.maximumPackets)
        return Int(((sequence % capacity) + capacity) % capacity)
    }

    /// Whether `sequence` is held.
    @inline(__always)
    private func holds(_ sequence: Int64) -> Bool { slots[index(sequence)].sequence == sequence }

    /// The frame starting at `begin`: complete (up to its marker, or up to the packet before the next frame's
    /// start when the sender set no marker), incomplete (a packet is missing), or corrupt (no frame start at
    /// `begin`, timestamps disagree, or too large).
    private func scan(from begin: Int64) -> Scan {
        guard holds(begin) else { return .incomplete }
        let first = slots[index(begin)]
        guard first.startsFrame else { return .corrupt }
        var length = 0
        var sequence = begin
        while sequence <= newest {
            guard holds(sequence) else { return .incomplete }
            let slot = slots[index(sequence)]
            if sequence > begin && slot.startsFrame {
                return slot.timestamp != first.timestamp ? .complete(end: sequence - 1, length: length) : .corrupt
            }
            guard slot.timestamp == first.timestamp else { return .corrupt }
            length += slot.length
            guard length <= configuration.maximumFrameSize else { return .corrupt }
            if slot.marker { return .complete(end: sequence, length: length) }
            sequence += 1
        }
        return .incomplete
    }

    /// Empties the slots of `lower ..< upper` (at most the whole window).
    private func release(from lower: Int64, to upper: Int64) {
        guard upper > lower else { return }
        if upper - lower >= Int64(configuration.maximumPackets) {
            for i in slots.indices { slots[i].sequence = nil }
            return
        }
        for sequence in lower ..< upper where holds(sequence) { slots[index(sequence)].sequence = nil }
    }

    /// Gives up the frame at `begin`: counts it lost, drops its first packet and looks for the next frame start.
    private func giveUp(_ begin: Int64) {
        counters.framesLost += 1
        release(from: begin, to: begin + 1)
        windowStart = begin + 1
        synchronized = false
        waitingForKeyFrame = true
        requestKeyFrame()
    }

    /// Moves the window start to `newStart` because a newer packet does not fit: whatever was pending is lost.
    private func overflow(to newStart: Int64) {
        guard let start = windowStart, newStart > start else { return }
        release(from: start, to: newStart)
        windowStart = newStart
        if synchronized { counters.framesLost += 1 }
        synchronized = false
        waitingForKeyFrame = true
        requestKeyFrame()
    }

    private func requestKeyFrame() {
        if let last = lastKeyFrameRequest,
           Int64(Int32(bitPattern: newestTimestamp &- last)) < Int64(configuration.keyFrameRequestInterval),
           Int32(bitPattern: newestTimestamp &- last) >= 0 {
            return
        }
        lastKeyFrameRequest = newestTimestamp
        keyFrameRequestPending = true
        counters.keyFrameRequests += 1
    }
}
