import Synchronization

/// The bounded queue of encoded messages waiting to be written to one socket.
///
/// The registry enqueues (never blocks: `send` is synchronous); the socket's writer task drains `messages` and,
/// when the outbox is closed, ends the socket with ``closeCode``. A full queue (``ServerConfiguration/outboxCapacity``)
/// closes the outbox with ``CloseCode/goingAway``: the client is treated as lost. Thread-safe (`Sendable`): the
/// continuation is thread-safe and the close code is guarded by a `Mutex`.
final class Outbox: Sendable {
    let messages: AsyncStream<[UInt8]>
    private let continuation: AsyncStream<[UInt8]>.Continuation
    private let closing = Mutex<CloseCode?>(nil)

    init(capacity: Int) {
        (messages, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingOldest(capacity))
    }

    /// Enqueues one encoded message; false if the outbox is closed or just overflowed (and closed itself).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        switch continuation.yield(bytes) {
        case .enqueued: return true
        case .dropped:
            close(.goingAway)
            return false
        case .terminated: return false
        @unknown default: return false
        }
    }

    /// Ends the stream after what is queued; the first close code wins.
    func close(_ code: CloseCode) {
        closing.withLock { if $0 == nil { $0 = code } }
        continuation.finish()
    }

    /// The code to close the socket with once `messages` ends (`.normal` if closed by the socket side).
    var closeCode: CloseCode { closing.withLock { $0 } ?? .normal }
}
