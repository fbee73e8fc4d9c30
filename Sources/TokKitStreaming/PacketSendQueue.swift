import Dispatch
import Synchronization
import TokKitPeer

/// The bounded queue between a video send pipeline's encode thread and its sending thread: the encode thread copies
/// each RTP payload in and goes on with the next frame at once; the sending thread takes the payloads out in order
/// and sends them at the pacer's rate (``PacketPacer``). So pacing never holds the encoder or the capturer (WebRTC's
/// pacer has its own queue for the same reason), and the queue's backlog, ``queuedBytes``, is what the encode thread
/// looks at to drop frames rather than let the queue grow (``SendBacklogGate``).
///
/// Single producer, single consumer, preallocated slots. ``push(_:header:)`` never blocks: false when every slot is
/// taken (the caller drops the rest of the frame). A slot's buffer grows only for a payload larger than any before
/// it (never with the packetizer's default size); nothing else is allocated per packet (the header's peer list is
/// the encode thread's array, shared, not copied). ``pop(_:)`` blocks until a packet or ``wakeUp()``.
final class PacketSendQueue: Sendable {
    /// What travels with a payload.
    struct Header: Sendable {
        var timestamp: UInt32 = 0
        var marker = false
        /// The simulcast layer (0: the smallest) and how many layers the encoder makes (1: no simulcast).
        var layer = 0
        var layers = 1
        /// The encoded frame's size in bytes on its first packet, 0 on the others (the pacer begins a frame there).
        var frameBytes = 0
        /// The path's estimate the pacer paces at (`Int.max`: none yet, send at once).
        var estimate = Int.max
        /// The factor over ``estimate`` the frame is paced at (``PacketPacer/pacingFactor``, or
        /// ``PacketPacer/drainingFactor`` while a bottleneck's queue drains).
        var pacingFactor = PacketPacer.pacingFactor
        /// How long the pacer takes to send this packet, in nanoseconds: its wire size at the rate its frame is
        /// paced at (``PacketPacer/frameRate(bytes:targetBitrate:factor:)``; 0 when not paced). Summed in ``backlog``.
        var pacedNanoseconds: Int64 = 0
        /// ``PeerFanOut/detachments`` when the frame was encoded: a packet whose count differs from the current one
        /// may name peers detached since, which the sending thread leaves out.
        var detachments = 0
        /// The live peers when the frame was encoded.
        var peers: [PeerConnection] = []
    }

    private typealias Slot = QueueSlot<Header>

    private struct Indices {
        var head = 0
        var count = 0
        var bytes = 0
        var pacedNanoseconds: Int64 = 0
    }

    /// What waits in the queue (the packet being sent included), read together.
    struct Backlog: Sendable, Hashable {
        /// Payload bytes.
        var bytes = 0
        /// Packets.
        var packets = 0
        /// How long the pacer takes to send them (the sum of their ``Header/pacedNanoseconds``).
        var time: Duration = .zero
    }

    /// Slots (packets) the queue holds.
    let capacity: Int
    private let slots: [Slot]
    private let indices = Mutex(Indices())
    private let signal = DispatchSemaphore(value: 0)

    /// The slots a video send pipeline's queue has unless told otherwise.
    static let defaultCapacity = 1024

    /// 1024 slots of 1200 bytes: ~1.2 MB, seconds of video at the rates a paced path carries, several key frames.
    /// At least one slot.
    init(capacity: Int = PacketSendQueue.defaultCapacity, slotBytes: Int = 1200) {
        let capacity = max(capacity, 1)
        self.capacity = capacity
        slots = (0..<capacity).map { _ in Slot(capacity: slotBytes, header: Header()) }
    }

    /// Copies one payload in; false when the queue is full.
    func push(_ payload: UnsafeRawBufferPointer, header: Header) -> Bool {
        let index: Int? = indices.withLock { i in i.count == capacity ? nil : (i.head + i.count) % capacity }
        guard let index else { return false }
        let slot = slots[index]
        slot.reserve(payload.count)
        if let base = payload.baseAddress, !payload.isEmpty {
            slot.bytes.baseAddress!.copyMemory(from: base, byteCount: payload.count)
        }
        slot.length = payload.count
        slot.header = header
        indices.withLock { i in
            i.count += 1
            i.bytes += payload.count
            i.pacedNanoseconds += header.pacedNanoseconds
        }
        signal.signal()
        return true
    }

    /// Waits for a packet and calls `body` with it (the payload is valid only during the call; the packet counts
    /// in ``queuedBytes`` until `body` returns); false when woken without one.
    @discardableResult
    func pop(_ body: (UnsafeRawBufferPointer, Header) -> Void) -> Bool {
        signal.wait()
        let index: Int? = indices.withLock { i in i.count > 0 ? i.head : nil }
        guard let index else { return false }
        let slot = slots[index]
        body(UnsafeRawBufferPointer(rebasing: slot.bytes[0..<slot.length]), slot.header)
        let length = slot.length, paced = slot.header.pacedNanoseconds
        slot.header.peers = []  // the peers are not kept alive by a sent packet
        indices.withLock { i in
            i.head = (i.head + 1) % capacity
            i.count -= 1
            i.bytes -= length
            i.pacedNanoseconds -= paced
        }
        return true
    }

    /// Payload bytes, packets and their pacing time waiting (the packet being sent included), read together.
    var backlog: Backlog {
        indices.withLock { Backlog(bytes: $0.bytes, packets: $0.count, time: .nanoseconds($0.pacedNanoseconds)) }
    }

    /// Packets waiting (the packet being sent included).
    var count: Int { indices.withLock { $0.count } }

    /// Drops every packet (when nothing is consuming: after the sending thread ended), releasing their peers.
    func removeAll() {
        indices.withLock { i in
            for k in 0..<i.count { slots[(i.head + k) % capacity].header.peers = [] }
            i.head = (i.head + i.count) % capacity
            i.count = 0
            i.bytes = 0
            i.pacedNanoseconds = 0
        }
    }

    /// Wakes the consumer without a packet (to stop it).
    func wakeUp() { signal.signal() }
}
