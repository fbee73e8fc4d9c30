import Synchronization
import TokKit
import TokKitTesting

/// Collects a Swift ``Session``'s events (subscribed at creation, so nothing is missed). Thread-safe.
final class EventLog: Sendable {
    private let events = Mutex<[SessionEvent]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ session: Session) {
        let stream = session.events
        let t = Task { [weak self] in
            for await event in stream {
                guard let self else { return }
                self.events.withLock { $0.append(event) }
            }
        }
        task.withLock { $0 = t }
    }

    deinit { task.withLock { $0 }?.cancel() }

    var all: [SessionEvent] { events.withLock { $0 } }

    /// Waits (bounded) for the first event `extract` maps to a value.
    func first<T>(timeout: Duration = .seconds(20), _ extract: @escaping @Sendable (SessionEvent) -> T?) async -> T? {
        var found: T?
        _ = await eventually(timeout: timeout) {
            found = self.all.lazy.compactMap(extract).first
            return found != nil
        }
        return found
    }
}

extension SessionEvent {
    var connectionCreated: Connection? { if case .connectionCreated(let c) = self { c } else { nil } }
    var streamCreated: SessionStream? { if case .streamCreated(let s) = self { s } else { nil } }
    var signal: (type: String, data: String, from: String?)? {
        if case .signalReceived(let t, let d, let f) = self { (t, d, f?.connectionID.rawValue) } else { nil }
    }
}
