import Foundation
import Synchronization

/// A pipe read to EOF by a ``PipeReader``, kept as lines (at most `capacity`, the oldest dropped).
///
/// Threading: any property or method from any thread (one lock); the pipe is read on the reader's own thread.
public final class LineCollector: Sendable {
    private struct State {
        var lines: [String] = []
        var dropped = 0
        var partial = ""
        var finished = false
    }
    private let state = Mutex(State())
    private let capacity: Int

    /// Collects `descriptor` (which it owns and closes).
    public init(reading descriptor: Int32, name: String, capacity: Int) {
        self.capacity = capacity
        PipeReader.start(descriptor, name: name, chunk: { [self] in append($0) }, end: { [self] in finish() })
    }

    /// Collects the read end of `pipe`, once the process writing to it runs.
    public init(_ pipe: Pipe, name: String, capacity: Int = 20_000) {
        self.capacity = capacity
        PipeReader.start(pipe, name: name, chunk: { [self] in append($0) }, end: { [self] in finish() })
    }

    /// Every line so far (the newest `capacity`).
    public var lines: [String] { state.withLock { $0.lines } }
    /// Lines written so far, those dropped included.
    public var linesWritten: Int { state.withLock { $0.dropped + $0.lines.count } }
    /// Whether EOF was read (a last line without a newline is in ``lines`` by then).
    public var finished: Bool { state.withLock { $0.finished } }

    /// Lines after the first `seen` ever written (advances `seen`).
    public func lines(after seen: inout Int) -> [String] {
        let (new, total) = state.withLock { s -> ([String], Int) in
            let start = max(seen - s.dropped, 0)
            return (start < s.lines.count ? Array(s.lines[start...]) : [], s.dropped + s.lines.count)
        }
        seen = total
        return new
    }

    private func append(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        state.withLock { s in
            s.partial += text
            while let newline = s.partial.firstIndex(of: "\n") {
                s.lines.append(String(s.partial[..<newline]))
                s.partial.removeSubrange(...newline)
            }
            trim(&s)
            if s.partial.utf8.count > 1 << 20 { s.partial = "" }
        }
    }

    private func finish() {
        state.withLock { s in
            if !s.partial.isEmpty { s.lines.append(s.partial) }
            s.partial = ""
            trim(&s)
            s.finished = true
        }
    }

    private func trim(_ s: inout State) {
        guard s.lines.count > capacity else { return }
        let excess = s.lines.count - capacity
        s.lines.removeFirst(excess)
        s.dropped += excess
    }
}
