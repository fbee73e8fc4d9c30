import Synchronization
import TokKit
import TokKitTesting

/// Collects a session's events from its `events` stream (subscribed at creation, so nothing is missed).
final class EventRecorder: Sendable {
    private let events = Mutex<[SessionEvent]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ session: Session) {
        let stream = session.events
        let t = Task { [weak self] in
            for await e in stream {
                guard let self else { return }
                self.events.withLock { $0.append(e) }
            }
        }
        task.withLock { $0 = t }
    }

    deinit { task.withLock { $0 }?.cancel() }

    var all: [SessionEvent] { events.withLock { $0 } }

    /// Waits until `predicate` holds for the events so far (bounded).
    func wait(timeout: Duration = .seconds(10), until predicate: @Sendable ([SessionEvent]) -> Bool) async -> Bool {
        await eventually(timeout: timeout) { predicate(self.all) }
    }

    /// Waits until at least `count` events match `filter`, then returns the matching ones.
    func wait<T>(for count: Int, timeout: Duration = .seconds(10), _ filter: @escaping @Sendable (SessionEvent) -> T?)
        async -> [T]
    {
        _ = await eventually(timeout: timeout) { self.all.compactMap(filter).count >= count }
        return all.compactMap(filter)
    }

    func clear() { events.withLock { $0.removeAll() } }
}

// Extractors for `wait(for:_:)`.
extension SessionEvent {
    var connectionCreated: Connection? { if case .connectionCreated(let c) = self { c } else { nil } }
    var connectionDestroyed: Connection? { if case .connectionDestroyed(let c) = self { c } else { nil } }
    var streamCreated: SessionStream? { if case .streamCreated(let s) = self { s } else { nil } }
    var streamDestroyed: SessionStream? { if case .streamDestroyed(let s) = self { s } else { nil } }
    var propertyChange: (SessionStream, StreamPropertyChange)? {
        if case .streamPropertyChanged(let s, let c) = self { (s, c) } else { nil }
    }
    var signal: (type: String, data: String, from: ConnectionID?)? {
        if case .signalReceived(let t, let d, let f) = self { (t, d, f?.connectionID) } else { nil }
    }
    var isConnected: Bool { if case .connected = self { true } else { false } }
    var isDisconnected: Bool { if case .disconnected = self { true } else { false } }
    var isReconnecting: Bool { if case .reconnecting = self { true } else { false } }
    var isReconnected: Bool { if case .reconnected = self { true } else { false } }
    var failure: SessionError? { if case .failed(let e) = self { e } else { nil } }

    /// A short name, for comparing sequences.
    var name: String {
        switch self {
        case .connected: "connected"
        case .disconnected: "disconnected"
        case .failed(let e): "failed(\(e.code))"
        case .connectionCreated: "connectionCreated"
        case .connectionDestroyed: "connectionDestroyed"
        case .streamCreated: "streamCreated"
        case .streamDestroyed: "streamDestroyed"
        case .streamPropertyChanged: "streamPropertyChanged"
        case .signalReceived: "signal"
        case .archiveStarted: "archiveStarted"
        case .archiveStopped: "archiveStopped"
        case .reconnecting: "reconnecting"
        case .reconnected: "reconnected"
        case .muteForced: "muteForced"
        }
    }
}
