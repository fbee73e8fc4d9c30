import NIOCore
import Synchronization

/// The bounded queue of encoded messages waiting to be written to one socket.
///
/// The registry enqueues (never blocks: `send` is synchronous); the socket's writer takes everything queued at once
/// (``nextBatch()``), writes it with one flush, reports it written (``written(messages:bytes:)``) and, when the outbox
/// is closed and drained, ends the socket with ``closeCode``. Taking batches is what keeps a busy session cheap: a
/// writer that is behind wakes once for all that piled up meanwhile, not once per message.
///
/// Bounded twice: at most ``ServerConfiguration/outboxCapacity`` messages and ``ServerConfiguration/outboxMaxBytes``
/// bytes wait (a message counts from `send` until written to the channel; one message alone may be larger, so a big
/// `connected` snapshot always goes out). A client that lets more pile up (it does not read) overflows it: the outbox
/// closes with ``CloseCode/outboxOverflow``, what is queued is dropped (``isOverflowed``) and `onOverflow` runs once
/// with the number of messages discarded (those waiting and the one that did not fit), so the socket can be cut even
/// while the writer waits on a peer that does not read.
///
/// A message is a `ByteBuffer`: a broadcast encodes once and every member's outbox holds the same storage.
/// Thread-safe (`Sendable`): the state is guarded by a `Mutex`, held only to count and to move the queue.
final class Outbox: Sendable {
    private struct State {
        var closing: CloseCode?
        /// Taken by the writer's next batch.
        var queue: [ByteBuffer] = []
        /// Queued and taken but not yet written.
        var pendingMessages = 0
        var pendingBytes = 0
        /// The writer, waiting for the next batch.
        var waiter: CheckedContinuation<[ByteBuffer]?, Never>?
        /// The writer was cancelled: batches end.
        var cancelled = false
    }

    let capacity: Int
    let maxBytes: Int
    private let state = Mutex(State())
    private let onOverflow: @Sendable (_ droppedMessages: Int) -> Void

    init(capacity: Int, maxBytes: Int = .max, onOverflow: @escaping @Sendable (_ droppedMessages: Int) -> Void = { _ in }) {
        self.capacity = capacity
        self.maxBytes = maxBytes
        self.onOverflow = onOverflow
    }

    /// Enqueues one encoded message; false if the outbox is closed or just overflowed (and closed itself).
    @discardableResult
    func send(_ message: ByteBuffer) -> Bool {
        enum Outcome { case queued(wake: CheckedContinuation<[ByteBuffer]?, Never>?), closed, overflowed(dropped: Int) }
        let count = message.readableBytes
        let outcome = state.withLock { state -> Outcome in
            guard state.closing == nil else { return .closed }
            guard state.pendingMessages < capacity,
                  state.pendingBytes == 0 || count <= maxBytes - state.pendingBytes
            else {
                state.closing = .outboxOverflow
                let dropped = state.pendingMessages + 1
                state.queue = []
                return .overflowed(dropped: dropped)
            }
            state.pendingMessages += 1
            state.pendingBytes += count
            guard let waiter = state.waiter else {
                state.queue.append(message)
                return .queued(wake: nil)
            }
            state.waiter = nil
            return .queued(wake: waiter)
        }
        switch outcome {
        case let .queued(waiter):
            waiter?.resume(returning: [message])
            return true
        case .closed:
            return false
        case let .overflowed(dropped):
            wakeWriter()
            onOverflow(dropped)
            return false
        }
    }

    /// Enqueues one encoded message given as bytes.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool { send(ByteBuffer(bytes: bytes)) }

    /// Everything queued, oldest first, waiting until there is something; nil once the outbox is closed and drained,
    /// overflowed (what waits is dropped) or the calling task is cancelled. One writer calls it.
    func nextBatch() async -> [ByteBuffer]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[ByteBuffer]?, Never>) in
                let batch = state.withLock { state -> [ByteBuffer]?? in
                    if state.cancelled || state.closing == .outboxOverflow { return .some(nil) }
                    if !state.queue.isEmpty {
                        defer { state.queue = [] }
                        return .some(state.queue)
                    }
                    if state.closing != nil { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let batch { continuation.resume(returning: batch) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.cancelled = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    /// The writer handed `messages` messages of `bytes` bytes in all to the channel: they no longer count against the
    /// bounds.
    func written(messages: Int, bytes: Int) {
        state.withLock { state in
            state.pendingMessages -= messages
            state.pendingBytes -= bytes
        }
    }

    /// Ends the batches after what is queued; the first close code wins.
    func close(_ code: CloseCode) {
        state.withLock { if $0.closing == nil { $0.closing = code } }
        wakeWriter()
    }

    /// Resumes a waiting writer with the end of the batches (the outbox is closed and nothing waits).
    private func wakeWriter() {
        let waiter = state.withLock { state in
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The code to close the socket with once the batches end (`.normal` if closed by the socket side).
    var closeCode: CloseCode { state.withLock { $0.closing } ?? .normal }

    /// True once the outbox overflowed: what is still queued is not written.
    var isOverflowed: Bool { state.withLock { $0.closing } == .outboxOverflow }

    /// Whether the writer is waiting for the next batch (nothing queued).
    var writerIsWaiting: Bool { state.withLock { $0.waiter != nil } }

    /// Bytes waiting now (queued or taken, not yet written).
    var queuedBytes: Int { state.withLock { $0.pendingBytes } }
}
