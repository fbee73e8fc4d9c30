import Foundation
import Synchronization
import TokKitTesting

/// A built example (next to the test bundle; `swift build --build-tests` builds it) running as a child process:
/// its standard output collected as lines (read on a thread of its own), its standard input open until
/// ``closeInput()``. Every wait is bounded; ``stop()`` (or deinit) kills what is still running.
final class ExampleChild: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let name: String
    private let process: Process
    private let input: FileHandle
    private let collected = Collected()
    private let exitStatus = ExitStatus()

    /// Standard output so far: complete lines, and the start of the next one.
    private final class Collected: Sendable {
        let state = Mutex<(lines: [String], pending: String)>(([], ""))
    }

    /// Set by Foundation's termination handler (its own thread).
    private final class ExitStatus: Sendable {
        let value = Mutex<Int32?>(nil)
    }

    /// Starts `name arguments…` through `stdbuf -oL` (line-buffered standard output, so each line is seen as it is
    /// printed) in a temporary directory.
    init(_ name: String, _ arguments: [String]) throws {
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw Failure(description: "\(name) is not built next to the tests: run `swift build --build-tests`")
        }
        self.name = name
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
        process.arguments = ["-oL", binary.path] + arguments
        process.currentDirectoryURL = FileManager.default.temporaryDirectory
        let output = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        let exitStatus = exitStatus
        process.terminationHandler = { p in exitStatus.value.withLock { $0 = p.terminationStatus } }
        try process.run()
        self.input = input.fileHandleForWriting
        let reader = output.fileHandleForReading
        let collected = collected
        Thread {
            while case let data = reader.availableData, !data.isEmpty {
                collected.state.withLock { state in
                    state.pending += String(decoding: data, as: UTF8.self)
                    while let newline = state.pending.firstIndex(of: "\n") {
                        state.lines.append(String(state.pending[..<newline]))
                        state.pending = String(state.pending[state.pending.index(after: newline)...])
                    }
                }
            }
        }.start()
    }

    deinit { stop() }

    /// Every line printed so far.
    var lines: [String] { collected.state.withLock { $0.lines } }

    /// Waits (bounded) until a printed line satisfies `match`; returns it, or nil on timeout.
    func waitForLine(timeout: Duration = .seconds(20), _ match: (String) -> Bool) async -> String? {
        var found: String?
        _ = await eventually(timeout: timeout) {
            found = self.lines.first(where: match)
            return found != nil
        }
        return found
    }

    /// Types `line` (a newline is added).
    func type(_ line: String) throws {
        try input.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Closes standard input (end of file: the chat leaves).
    func closeInput() {
        try? input.close()
    }

    /// Waits (bounded) for the process to exit; its status, or nil if it is still running.
    func waitForExit(timeout: Duration = .seconds(20)) async -> Int32? {
        _ = await eventually(timeout: timeout) { self.exitStatus.value.withLock { $0 } != nil }
        return exitStatus.value.withLock { $0 }
    }

    /// Kills the process if it still runs.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
