/// One `console.*` call of a page (DevTools `Runtime.consoleAPICalled`).
///
/// Value type, usable from any thread.
public struct ConsoleMessage: Sendable, Hashable, CustomStringConvertible {
    /// `log`, `warning`, `error`, `info`, `debug`...
    public var type: String
    /// The arguments joined by spaces: strings as they are, other values as their JSON or description.
    public var text: String

    public init(type: String, text: String) {
        self.type = type
        self.text = text
    }

    public var description: String { "console.\(type): \(text)" }
}
