import Synchronization

/// The bounded queue of encoded messages waiting to be written to one socket.
///
/// The registry enqueues (never blocks: `send` is synchronous); the socket's writer task drains `messages`, reports
/// each message written (``written(_:)``) and, when the outbox is closed, ends the socket with ``closeCode``.
/// Bounded twice: at most ``ServerConfiguration/outboxCapacity`` messages and ``ServerConfiguration/outboxMaxBytes``
/// bytes wait (a message counts from `send` until written to the channel; one message alone may be larger, so a big
/// `connected` snapshot always goes out). A client that lets more pile up (it does
/// not read) overflows it: the outbox closes with ``CloseCode/outboxOverflow``, the writer drops what is queued
/// (``isOverflowed``) and `onOverflow` runs once with the number of messages discarded (those queued and the one that
/// did not fit), so the socket can be cut even while the writer waits on a peer that does not read. Thread-safe (`Sendable`): the continuation is thread-safe and the rest is guarded by a
/// `Mutex`, held only to count.
final class Outbox: Sendable {
    private struct State {
        var closing: CloseCode?
        var queuedMessages = 0
        var queuedBytes = 0
    }

    let messages: AsyncStream<[UInt8]>
    let capacity: Int
    let maxBytes: Int
    private let continuation: AsyncStream<[UInt8]>.Continuation
    private let state = Mutex(State())
    private let onOverflow: @Sendable (_ droppedMessages: Int) -> Void

    init(capacity: Int, maxBytes: Int = .max, onOverflow: @escaping @Sendable (_ droppedMessages: Int) -> Void = { _ in }) {
        self.capacity = capacity
        self.maxBytes = maxBytes
        self.onOverflow = onOverflow
        (messages, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
    }

    /// Enqueues one encoded message; false if the outbox is closed or just overflowed (and closed itself).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        enum Outcome { case queued, closed, overflowed(dropped: Int) }
        let outcome = state.withLock { state -> Outcome in
            guard state.closing == nil else { return .closed }
            guard state.queuedMessages < capacity,
                  state.queuedBytes == 0 || bytes.count <= maxBytes - state.queuedBytes
            else {
                state.closing = .outboxOverflow
                return .overflowed(dropped: state.queuedMessages + 1)
            }
            state.queuedMessages += 1
            state.queuedBytes += bytes.count
            return .queued
        }
        switch outcome {
        case .queued:
            continuation.yield(bytes)
            return true
        case .closed:
            return false
        case let .overflowed(dropped):
            continuation.finish()
            onOverflow(dropped)
            return false
        }
    }

    /// The writer handed a message of `count` bytes to the channel: it no longer counts against the bounds.
    func written(_ count: Int) {
        state.withLock { state in
            state.queuedMessages -= 1
            state.queuedBytes -= count
        }
    }

    /// Ends the stream after what is queued; the first close code wins.
    func close(_ code: CloseCode) {
        state.withLock { if $0.closing == nil { $0.closing = code } }
        continuation.finish()
    }

    /// The code to close the socket with once `messages` ends (`.normal` if closed by the socket side).
    var closeCode: CloseCode { state.withLock { $0.closing } ?? .normal }

    /// True once the outbox overflowed: what is still queued is not written.
    var isOverflowed: Bool { state.withLock { $0.closing } == .outboxOverflow }

    /// Bytes waiting now.
    var queuedBytes: Int { state.withLock { $0.queuedBytes } }
}
