import Synchronization

/// A thread-safe FIFO that a test awaits with a deadline: `receive(within:)` returns the next item, or nil when
/// the deadline passes first. Producers call `push` from any thread.
final class Mailbox<Item: Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        var head = 0
        var waiter: (id: UInt64, continuation: CheckedContinuation<Item?, Never>)?
        var nextWaiter: UInt64 = 0
    }
    private let state = Mutex(State())

    func push(_ item: Item) {
        let waiter = state.withLock { state -> CheckedContinuation<Item?, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter.continuation
            }
            state.items.append(item)
            return nil
        }
        waiter?.resume(returning: item)
    }

    func receive(within timeout: Duration) async -> Item? {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Item?? in
                if state.head < state.items.count {
                    let item = state.items[state.head]
                    state.head += 1
                    if state.head == state.items.count {
                        state.items.removeAll(keepingCapacity: true)
                        state.head = 0
                    }
                    return .some(item)
                }
                state.waiter = (id, continuation)
                return nil
            }
            if let ready {
                continuation.resume(returning: ready)
                return
            }
            Task {
                try? await Task.sleep(for: timeout)
                let expired = self.state.withLock { state -> CheckedContinuation<Item?, Never>? in
                    guard let waiter = state.waiter, waiter.id == id else { return nil }
                    state.waiter = nil
                    return waiter.continuation
                }
                expired?.resume(returning: nil)
            }
        }
    }
}
