import Logging
import Synchronization

/// A swift-log handler that keeps every entry (level, message and all its metadata: the logger's, its provider's
/// and the call's, merged as a handler would print them), for tests of what the server logs. Thread-safe: the
/// entries live in a shared ``Store``.
struct CapturingLogHandler: LogHandler {
    struct Entry: Sendable, CustomStringConvertible {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]

        var description: String { "\(level) \(message) \(metadata.sorted { $0.key < $1.key })" }
    }

    final class Store: Sendable {
        private let entries = Mutex<[Entry]>([])

        func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }

        var all: [Entry] { entries.withLock { $0 } }

        /// A logger whose entries (at `level` and above) go to this store.
        func logger(label: String = "test.capture", level: Logger.Level = .trace) -> Logger {
            var logger = Logger(label: label) { _ in CapturingLogHandler(store: self) }
            logger.logLevel = level
            return logger
        }
    }

    let store: Store
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let own = event.metadata { merged.merge(own) { $1 } }
        store.append(Entry(level: event.level, message: event.message.description,
                           metadata: merged.mapValues { $0.description }))
    }
}
