/// One preallocated slot of a single-producer, single-consumer byte queue (``EncodedFrameQueue``,
/// ``PacketSendQueue``): a buffer that grows only when a larger item comes (never per item in steady state), the
/// item's length and its header.
///
/// Threading: not synchronised itself. The owning queue's indices decide who may touch a slot: the producer only
/// between finding it free and committing it, the consumer only between taking it and releasing it; those windows
/// are disjoint.
final class QueueSlot<Header>: @unchecked Sendable {
    var bytes: UnsafeMutableRawBufferPointer
    var length = 0
    var header: Header

    init(capacity: Int, header: Header) {
        bytes = .allocate(byteCount: capacity, alignment: 16)
        self.header = header
    }

    deinit { bytes.deallocate() }

    /// Makes room for `count` bytes (at least doubling), dropping what the buffer held.
    func reserve(_ count: Int) {
        guard count > bytes.count else { return }
        bytes.deallocate()
        bytes = .allocate(byteCount: max(count, bytes.count * 2), alignment: 16)
    }
}
