import Foundation

/// One run of a built example (next to the test bundle; `swift build --build-tests` builds them all) as a child
/// process, in a directory of its own, with no standard input. Every wait is bounded: past `limit` the process is
/// killed and the run reports it.
struct ExampleProcess: Sendable {
    /// How the process ended.
    enum Ending: Equatable, Sendable {
        case exited(Int32)
        /// Killed by a signal (by the test at the limit: `killedAtLimit`).
        case signalled(Int32)
    }

    var ending: Ending
    var killedAtLimit: Bool
    /// Standard output, then standard error.
    var output: String, errors: String
    /// What the process left in its working directory.
    var filesLeft: [String]

    struct NotBuilt: Error, CustomStringConvertible {
        var name: String
        var description: String { "\(name) is not built next to the tests: run `swift build --build-tests`" }
    }

    /// The path of the built executable `name`.
    static func path(_ name: String) throws -> URL {
        let candidate = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: candidate.path) else { throw NotBuilt(name: name) }
        return candidate
    }

    /// Runs `name arguments…` to its end, or kills it after `limit`.
    static func run(_ name: String, _ arguments: [String], limit: Duration = .seconds(60)) async throws -> ExampleProcess {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("example-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let process = Process()
        process.executableURL = try path(name)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let (ended, ending) = AsyncStream.makeStream(of: Void.self)
        process.terminationHandler = { _ in
            ending.yield()
            ending.finish()
        }
        try process.run()
        let pid = process.processIdentifier
        let watchdog = Task {
            try await Task.sleep(for: limit)
            kill(pid, SIGKILL)
            return true
        }
        async let out = readToEnd(output.fileHandleForReading)
        async let err = readToEnd(errors.fileHandleForReading)
        let (stdout, stderr) = await (out, err)
        for await _ in ended { break }
        watchdog.cancel()
        let killed = (try? await watchdog.value) ?? false
        let status = process.terminationStatus
        return ExampleProcess(
            ending: process.terminationReason == .exit ? .exited(status) : .signalled(status), killedAtLimit: killed,
            output: String(decoding: stdout, as: UTF8.self), errors: String(decoding: stderr, as: UTF8.self),
            filesLeft: (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
    }

    /// Everything `handle` yields until end of file, read on a thread of its own (nothing blocks the cooperative
    /// pool); the pipe closes when the process and its children have exited.
    private static func readToEnd(_ handle: FileHandle) async -> Data {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: handle.readDataToEndOfFile()) }.start()
        }
    }
}
