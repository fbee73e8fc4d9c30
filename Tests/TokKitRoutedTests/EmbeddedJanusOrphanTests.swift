import Foundation
import Testing
import TokKitNetworkLab
import TokKitTesting

/// The embedded Janus dies with its server (Docs/Routing.md, "Deployment"): the real `tokkit-server` executable,
/// started with `--janus-mode embedded` on the lab's test address, is killed with SIGKILL (no chance to stop its
/// child); its Janus, found by pid among the server's children, must be gone within a bounded time (its parent-death
/// signal). Run inside `unshare -n`, as scripts/test does.
@Suite("Embedded Janus dies with its server", .serialized) struct EmbeddedJanusOrphanTests {
    @Test func aServerKilledWithSIGKILLTakesItsJanusWithIt() async throws {
        try await NetworkLab.run { lab in
            let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
                .appendingPathComponent("tokkit-server")
            try #require(FileManager.default.isExecutableFile(atPath: binary.path),
                         "tokkit-server is not built next to the tests: run `swift build --build-tests`")
            let server = Process()
            server.executableURL = binary
            server.arguments = ["--port", "0", "--api-key", "orphan-key", "--api-secret", "orphan-secret-0123456789",
                                "--janus-mode", "embedded", "--janus-interface", lab.testAddress, "--log-level", "error"]
            let output = Pipe()
            server.standardOutput = output
            try server.run()
            let lines = LineCollector(output, name: "tokkit-server")
            var janus: Int32?
            defer {
                if server.isRunning { kill(server.processIdentifier, SIGKILL) }
                if let janus, Self.isAlive(janus) { kill(janus, SIGKILL) }  // never leave one behind
            }
            let listening = await eventually(timeout: .seconds(30)) {
                lines.lines.contains { $0.contains("listening on http://") }
            }
            try #require(listening, "the server never listened: \(lines.lines)")
            // Its Janus runs before the server listens.
            janus = Self.children(of: server.processIdentifier).first { $0.value == "janus" }?.key
            let pid = try #require(janus, "no janus child of the server: \(Self.children(of: server.processIdentifier))")
            #expect(Self.isAlive(pid))

            let killed = ContinuousClock.now
            kill(server.processIdentifier, SIGKILL)
            let gone = await eventually(timeout: .seconds(10)) { !Self.isAlive(pid) }
            print("embedded janus pid \(pid): gone \(ContinuousClock.now - killed) after its server's SIGKILL")
            #expect(gone, "janus pid \(pid) outlived its server")
        }
    }

    /// Live (not zombie) children of `parent`: pid → command name, from /proc.
    static func children(of parent: Int32) -> [Int32: String] {
        var found: [Int32: String] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let (name, state, ppid) = stat(pid), state != "Z", ppid == parent
            else { continue }
            found[pid] = name
        }
        return found
    }

    /// Whether `pid` runs (exists and is not a zombie).
    static func isAlive(_ pid: Int32) -> Bool {
        guard let (_, state, _) = stat(pid) else { return false }
        return state != "Z"
    }

    /// Name, state and parent of `pid` from `/proc/PID/stat`.
    static func stat(_ pid: Int32) -> (String, Substring, Int32)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 1, let ppid = Int32(fields[1]) else { return nil }
        return (String(text[text.index(after: open)..<close]), fields[0], ppid)
    }
}
