import Foundation
import Synchronization

/// Runs the lab's configuration commands (and a test's own short commands) (`ip`, `nft`, `tc`, `sysctl`, `openssl`) as child processes and waits
/// for them without blocking a thread: the wait is a continuation resumed by Foundation's termination handler.
public enum Command {
    /// The longest a configuration command may take.
    public static let timeout: Duration = .seconds(20)

    /// Runs `argv` (its first element an absolute path), optionally feeding `input` on stdin; returns stdout.
    /// Throws ``LabError/commandFailed(command:status:output:)`` on a non-zero exit (with stderr).
    @discardableResult
    public static func run(_ argv: [String], input: String? = nil) async throws(LabError) -> String {
        guard let executable = argv.first else { return "" }
        guard FileManager.default.isExecutableFile(atPath: executable) else { throw .toolMissing(executable) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = Array(argv.dropFirst())
        let stdout = Pipe(), stderr = Pipe(), stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        let output = Collected(), errors = Collected()
        let outcome: Outcome = await withCheckedContinuation { continuation in
            let once = Once(continuation)
            process.terminationHandler = { p in once.resume(.exited(p.terminationStatus)) }
            do { try process.run() } catch {
                once.resume(.notStarted("\(error)"))
                return
            }
            output.collect(stdout)
            errors.collect(stderr)
            if let input {
                stdin.fileHandleForWriting.write(Data(input.utf8))
                try? stdin.fileHandleForWriting.close()
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Int(timeout.components.seconds))) {
                if once.resume(.timedOut) { process.terminate() }
            }
        }
        let line = argv.joined(separator: " ")
        let status: Int32
        switch outcome {
        case .notStarted(let why): throw .launchFailed("\(line): \(why)")
        case .timedOut: throw .timedOut(line)
        case .exited(let s): status = s
        }
        let text = await output.text()
        guard status == 0 else { throw .commandFailed(command: line, status: status, output: await errors.text()) }
        return text
    }

    private enum Outcome: Sendable {
        case exited(Int32)
        case notStarted(String)
        case timedOut
    }

    /// Resumes a continuation once, whichever of exit and timeout comes first.
    private final class Once: Sendable {
        private let continuation: Mutex<CheckedContinuation<Outcome, Never>?>
        init(_ continuation: CheckedContinuation<Outcome, Never>) { self.continuation = Mutex(continuation) }
        /// Whether this call was the one that resumed.
        @discardableResult
        func resume(_ outcome: Outcome) -> Bool {
            guard let c = continuation.withLock({ $0.take() }) else { return false }
            c.resume(returning: outcome)
            return true
        }
    }

    /// A pipe's bytes (the first MiB), read to EOF by a ``PipeReader``.
    private final class Collected: Sendable {
        private let state = Mutex<(data: Data, done: Bool)>((Data(), false))
        /// Starts reading `pipe` (its writer already running).
        func collect(_ pipe: Pipe) {
            PipeReader.start(pipe, name: "lab-command", chunk: { [self] bytes in
                state.withLock { s in if s.data.count < 1 << 20 { s.data.append(contentsOf: bytes) } }
            }, end: { [self] in state.withLock { $0.done = true } })
        }
        /// Everything read, once EOF was seen (bounded: at most 2 s after exit).
        func text() async -> String {
            for _ in 0..<200 {
                if state.withLock({ $0.done }) { break }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return String(decoding: state.withLock { $0.data }, as: UTF8.self)
        }
    }
}
