import Synchronization
@testable import TokKit

/// Consumes an `AsyncStream` in a task, keeping every element and whether the stream ended.
final class StreamRecorder<Element: Sendable>: Sendable {
    private final class Log: Sendable {
        let elements = Mutex<[Element]>([])
        let finished = Atomic<Bool>(false)
    }

    private let log = Log()
    private let task: Task<Void, Never>

    /// Records the elements of `stream` that `keep` accepts.
    init(_ stream: AsyncStream<Element>, where keep: @escaping @Sendable (Element) -> Bool = { _ in true }) {
        task = Task { [log] in
            for await e in stream where keep(e) { log.elements.withLock { $0.append(e) } }
            log.finished.store(true, ordering: .releasing)
        }
    }

    deinit { task.cancel() }

    var all: [Element] { log.elements.withLock { $0 } }
    /// Whether the stream ended (and the task saw its end).
    var ended: Bool { log.finished.load(ordering: .acquiring) }
}

extension SubscriberEvent {
    /// The once-a-second statistics (left out of recordings that compare event sequences).
    var isStatistics: Bool { if case .statisticsUpdated = self { true } else { false } }
}

extension PublisherEvent {
    /// The once-a-second statistics (left out of recordings that compare event sequences).
    var isStatistics: Bool { if case .statisticsUpdated = self { true } else { false } }
}
