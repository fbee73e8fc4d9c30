import Foundation

/// The built `tokkit-server` executable (next to the test bundle, built by `swift build --build-tests`) running as a
/// child process on 127.0.0.1 with an ephemeral port. Its output is read on a thread of its own; every wait is
/// bounded. Thread-safe: the process is only started, signalled and waited for.
final class ServerProcess: Sendable {
    let port: Int
    private let process: Process
    private let exited = Mailbox<Int32>()

    /// Starts `tokkit-server --port 0 --api-key … --api-secret …` plus `arguments`; returns once it printed its port.
    init(_ arguments: [String]) async throws {
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("tokkit-server")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw TestFailure("tokkit-server is not built next to the tests: run `swift build --build-tests`")
        }
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--port", "0", "--api-key", TestServer.apiKey, "--api-secret", TestServer.apiSecret,
                             "--log-level", "error"] + arguments
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
