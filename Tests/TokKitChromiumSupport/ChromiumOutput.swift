import Foundation
import Synchronization

/// Chromium's stderr, read to EOF on a dedicated thread (never on the cooperative pool) so the pipe never fills:
/// the DevTools endpoint it announces and the last lines, for error messages.
///
/// Threading: written by the `chromium-stderr` thread, read from any thread under a lock.
final class ChromiumOutput: Sendable {
    private struct State {
        var devToolsURL: String?
        var tail: [String] = []
        var partial = ""
        var finished = false
    }

    /// Lines kept for diagnostics.
    static let tailLines = 30
    private static let marker = "DevTools listening on "

    private let state = Mutex(State())

    /// Starts the reader thread on `descriptor`, which it closes at EOF.
    init(reading descriptor: Int32) {
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                append(String(decoding: buffer[0..<n], as: UTF8.self))
            }
            close(descriptor)
            state.withLock { $0.finished = true }
        }
        thread.name = "chromium-stderr"
        thread.start()
    }

    /// `ws://127.0.0.1:PORT/devtools/browser/ID`, once printed.
    var devToolsURL: String? { state.withLock { $0.devToolsURL } }

    /// The last lines of stderr.
    var tail: String { state.withLock { $0.tail.joined(separator: "\n") } }

    private func append(_ text: String) {
        state.withLock { s in
            s.partial += text
            while let newline = s.partial.firstIndex(of: "\n") {
                let line = String(s.partial[..<newline])
                s.partial.removeSubrange(...newline)
                if s.devToolsURL == nil, let r = line.range(of: Self.marker) {
                    s.devToolsURL = String(line[r.upperBound...]).trimmingCharacters(in: .whitespaces)
                }
                s.tail.append(line)
                if s.tail.count > Self.tailLines { s.tail.removeFirst() }
            }
            if s.partial.utf8.count > 65_536 { s.partial = "" }  // a runaway line: drop it
        }
    }
}
