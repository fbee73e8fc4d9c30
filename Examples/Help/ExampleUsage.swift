// The examples' answer to `--help` and `-h`: their usage on standard output, exit status 0, nothing run.
#if canImport(Glibc)
import Glibc
#endif

/// An example's usage text, printed when it is asked for (`--help` or `-h` anywhere among the arguments).
///
/// Examples that parse their arguments by hand call ``answerHelp(_:)`` first thing, before they open a device,
/// start a server or write a file; `signaling-chat` gets the same from swift-argument-parser.
public struct ExampleUsage: Sendable {
    /// The text, its first line `usage: NAME …`.
    public let text: String

    public init(_ text: String) {
        self.text = text
    }

    /// True when `arguments` (the program name first, as in `CommandLine.arguments`) ask for help.
    public static func asksForHelp(_ arguments: [String]) -> Bool {
        arguments.dropFirst().contains { $0 == "--help" || $0 == "-h" }
    }

    /// Prints the usage to standard output and exits with status 0 when `arguments` ask for help; returns
    /// otherwise.
    public func answerHelp(_ arguments: [String] = CommandLine.arguments) {
        guard Self.asksForHelp(arguments) else { return }
        print(text)
        fflush(nil)  // every output stream: `stdout` itself is shared mutable state to Swift 6
        exit(0)
    }
}
