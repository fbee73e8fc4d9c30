import Synchronization

/// Keeps every console message of one ``ChromiumPage`` (its single ``ChromiumPage/consoleMessages`` stream,
/// drained by one task from creation on), so tests can read them at any time and wait for one.
///
/// Bounded: the first ``capacity`` messages are kept, later ones are counted in ``overflow``. The draining task
/// ends when the browser closes (the stream finishes) or on ``stop()``.
///
/// Threading: any method from any task; reads take a lock, waits poll with a deadline (never block a thread).
public final class ConsoleRecorder: Sendable {
    /// Messages kept at most.
    public static let capacity = 20_000

    /// The kept messages, shared with the draining task (which must not keep the recorder alive).
    private final class Storage: Sendable {
        let state = Mutex<(messages: [ConsoleMessage], overflow: Int)>(([], 0))
    }

    private let storage = Storage()
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Starts draining `page`'s console. Create at most one recorder per page (the stream has one consumer).
    public init(_ page: ChromiumPage) {
        let stream = page.consoleMessages
        let drain = Task { [storage] in
            for await message in stream {
                storage.state.withLock { s in
                    if s.messages.count < Self.capacity { s.messages.append(message) } else { s.overflow += 1 }
                }
            }
        }
        task.withLock { $0 = drain }
    }

    deinit { task.withLock { $0 }?.cancel() }

    /// Every message so far, in order.
    public var messages: [ConsoleMessage] { storage.state.withLock { $0.messages } }

    /// The texts of every message so far, in order.
    public var texts: [String] { storage.state.withLock { $0.messages.map(\.text) } }

    /// Messages that arrived after ``capacity`` was reached (not kept).
    public var overflow: Int { storage.state.withLock { $0.overflow } }

    /// The first message whose text satisfies `predicate`, waiting for it at most `timeout` (polling every
    /// 10 ms); nil on timeout.
    public func first(timeout: Duration = .seconds(20), where predicate: (String) -> Bool) async -> String? {
        let deadline = ContinuousClock.now + timeout
        var checked = 0
        while true {
            let texts = storage.state.withLock { s in s.messages[checked...].map(\.text) }
            if let hit = texts.first(where: predicate) { return hit }
            checked += texts.count
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Stops recording (messages kept so far stay readable). Idempotent.
    public func stop() async {
        let drain = task.withLock { $0 }
        drain?.cancel()
        await drain?.value
    }
}
