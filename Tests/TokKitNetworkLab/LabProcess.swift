import Foundation
import Synchronization

/// A program running in a lab host (`ip netns exec`), its stdout collected as lines and its stderr's tail kept for
/// diagnostics; its stdin stays open until ``closeInput()`` (programs like `tokkit-lab-peer` leave when it closes).
///
/// The ``NetworkLab`` that started it stops it at the latest when the lab closes. Threading: any method from any
/// task; stdout and stderr are read on threads of their own, never on the cooperative pool.
public final class LabProcess: Sendable {
    /// Lines kept (the oldest are dropped beyond this).
    public static let lineCapacity = 20_000

    /// The command line, for messages.
    public let command: String
    /// The process id (the program's own: `ip netns exec` execs it).
    public let pid: Int32

    private let process: Mutex<Process?>
    private let input: Mutex<FileHandle?>
    private let stdout: LineCollector
    private let stderr: LineCollector
    private let exitStatus = ExitStatus()

    /// Set by Foundation's termination handler (its own thread).
    private final class ExitStatus: Sendable {
        let value = Mutex<Int32?>(nil)
    }

    init(namespace: String, argv: [String], environment: [String: String]) throws(LabError) {
        command = argv.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: NetworkLab.ip)
        process.arguments = ["netns", "exec", namespace] + argv
        // Files a program writes to its working directory (an example's snapshot, say) go to a scratch directory,
        // not into the checkout the tests run from.
        process.currentDirectoryURL = FileManager.default.temporaryDirectory
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe(), err = Pipe(), inp = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inp
        let status = exitStatus
        process.terminationHandler = { p in status.value.withLock { $0 = p.terminationStatus } }
        do { try process.run() } catch { throw .launchFailed("\(command): \(error)") }
        try? out.fileHandleForWriting.close()
        try? err.fileHandleForWriting.close()
        try? inp.fileHandleForReading.close()
        pid = process.processIdentifier
        stdout = LineCollector(reading: dup(out.fileHandleForReading.fileDescriptor), name: "lab-stdout",
                               capacity: Self.lineCapacity)
        stderr = LineCollector(reading: dup(err.fileHandleForReading.fileDescriptor), name: "lab-stderr", capacity: 40)
        try? out.fileHandleForReading.close()
        try? err.fileHandleForReading.close()
        self.process = Mutex(process)
        input = Mutex(inp.fileHandleForWriting)
    }

    /// Every line written to stdout so far (the newest ``lineCapacity``).
    public var lines: [String] { stdout.lines }
    /// Stdout lines written so far, those no longer kept included.
    public var linesWritten: Int { stdout.linesWritten }
    /// The stdout lines after the first `seen` ever written; advances `seen` to the number written so far.
    public func lines(after seen: inout Int) -> [String] { stdout.lines(after: &seen) }
    /// The last lines written to stderr.
    public var stderrTail: String { stderr.lines.joined(separator: "\n") }
    /// The exit status, once it has exited.
    public var status: Int32? { exitStatus.value.withLock { $0 } }
    /// Whether it is still running.
    public var isRunning: Bool { status == nil }

    /// Waits until a stdout line satisfies `match` and returns it, at most `timeout`; throws
    /// ``LabError/timedOut(_:)`` (with the stderr tail) otherwise, or as soon as the process has exited without one.
    public func waitForLine(timeout: Duration, _ what: String, where match: (String) -> Bool)
        async throws(LabError) -> String {
        let deadline = ContinuousClock.now + timeout
        var seen = 0
        while true {
            let all = stdout.lines(after: &seen)
            if let line = all.first(where: match) { return line }
            if !isRunning, stdout.finished {
                if let line = stdout.lines(after: &seen).first(where: match) { return line }
                throw .timedOut("\(what): \(command) exited with \(status ?? -1); stderr:\n\(stderrTail)")
            }
            if ContinuousClock.now >= deadline { throw .timedOut("\(what) within \(timeout); stderr:\n\(stderrTail)") }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Writes `text` to its stdin (nothing if stdin was closed).
    public func write(_ text: String) {
        input.withLock { handle in try? handle?.write(contentsOf: Data(text.utf8)) }
    }

    /// Closes its stdin (a lab peer then leaves its session and exits).
    public func closeInput() {
        try? input.withLock { $0.take() }?.close()
    }

    /// Waits for it to exit by itself, at most `timeout`; returns the status, or nil if it is still running.
    @discardableResult
    public func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        return status
    }

    /// Closes stdin, then SIGTERM after `grace`, then SIGKILL a second later; waits (bounded) for the exit.
    public func stop(grace: Duration = .seconds(5)) async {
        closeInput()
        if await waitForExit(timeout: grace) != nil { return }
        kill(pid, SIGTERM)
        if await waitForExit(timeout: .seconds(1)) != nil { return }
        kill(pid, SIGKILL)
        await waitForExit(timeout: .seconds(2))
    }
}
