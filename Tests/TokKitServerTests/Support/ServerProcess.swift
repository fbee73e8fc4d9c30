import Foundation

/// The built `tokkit-server` executable (next to the test bundle, built by `swift build --build-tests`) running as a
/// child process on 127.0.0.1 with an ephemeral port. Its output is read on a thread of its own; every wait is
/// bounded. Thread-safe: the process is only started, signalled and waited for.
final class ServerProcess: Sendable {
    let port: Int
    private let process: Process
    private let exited = Mailbox<Int32>()

    /// Starts `tokkit-server --port 0 --api-key … --api-secret …` plus `arguments`; returns once it printed its port.
    /// With `descriptorLimit` (`prlimit`'s `--nofile` syntax, `SOFT:` or `SOFT:HARD`) it starts with that limit.
    init(_ arguments: [String], descriptorLimit: String? = nil) async throws {
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("tokkit-server")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw TestFailure("tokkit-server is not built next to the tests: run `swift build --build-tests`")
        }
        let process = Process()
        let serverArguments = ["--port", "0", "--api-key", TestServer.apiKey, "--api-secret", TestServer.apiSecret,
                                "--log-level", "error"] + arguments
        if let descriptorLimit {  // prlimit sets it, then runs the server in its place (same process)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
            process.arguments = ["--nofile=\(descriptorLimit)", binary.path] + serverArguments
        } else {
            process.executableURL = binary
            process.arguments = serverArguments
        }
        let output = Pipe()
        process.standardOutput = output
        let exited = exited
        process.terminationHandler = { exited.push($0.terminationStatus) }
        try process.run()
        self.process = process
        let ports = Mailbox<Int>()
        let reader = output.fileHandleForReading
        Thread {
            // "tokkit-server listening on http://127.0.0.1:PORT (signaling …)"; then the pipe is drained until EOF.
            var pending = ""
            while case let data = reader.availableData, !data.isEmpty {
                pending += String(decoding: data, as: UTF8.self)
                if let range = pending.range(of: "http://127.0.0.1:"),
                   let port = Int(pending[range.upperBound...].prefix { $0.isNumber }) {
                    ports.push(port)
                    pending = ""
                }
            }
        }.start()
        guard let port = await ports.receive(within: .seconds(20)) else {
            process.terminate()
            throw TestFailure("tokkit-server printed no port")
        }
        self.port = port
    }

    /// The soft and hard limits on open descriptors the process runs with, from `/proc/PID/limits`.
    var descriptorLimits: (soft: Int, hard: Int)? {
        guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/limits", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") })
        else { return nil }
        let numbers = line.split(separator: " ").compactMap { Int($0) }
        return numbers.count >= 2 ? (numbers[0], numbers[1]) : nil
    }

    /// SIGTERM, then waits (bounded) for the graceful stop; its exit status, or nil if it had to be killed.
    @discardableResult
    func stop() async -> Int32? {
        process.terminate()
        if let status = await exited.receive(within: .seconds(10)) { return status }
        kill(process.processIdentifier, SIGKILL)
        _ = await exited.receive(within: .seconds(5))
        return nil
    }
}
