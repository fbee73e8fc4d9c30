import Foundation
import Testing
import TokKitServer

/// `tokkit-server`'s Janus options (`--janus`, `--janus-mode`, `--janus-interface`, `--janus-executable`) as the
/// server resolves them (`ServerConfiguration.resolveJanus`), the config file's `embeddedJanus`, and the built
/// executable refusing what cannot work. No Janus runs here.
@Suite struct JanusDeploymentTests {
    static let external = RoutedMediaConfiguration(url: "ws://198.18.9.9:8188", apiSecret: "s", adminKey: "k")

    @Test func aGivenJanusIsUsedAndExcludesAnEmbeddedOne() throws {
        var configuration = ServerConfiguration()
        configuration.embeddedJanus = EmbeddedJanusSettings()  // from a config file: --janus wins
        #expect(try configuration.resolveJanus(mode: .auto, external: [Self.external]) == .external(urls: [Self.external.url]))
        #expect(configuration.janus == [Self.external] && configuration.embeddedJanus == nil)

        for mode in [JanusMode.embedded, .none] {
            var given = ServerConfiguration()
            #expect(throws: TokKitServerError.self, "\(mode)") {
                _ = try given.resolveJanus(mode: mode, external: [Self.external])
            }
        }
        var file = ServerConfiguration()  // a config file naming both
        file.janus = [Self.external]
        file.embeddedJanus = EmbeddedJanusSettings()
        #expect(throws: TokKitServerError.self) { _ = try file.resolveJanus(mode: .auto) }
        var both = ServerConfiguration(apiKey: "k", apiSecret: "0123456789abcdef")
        both.janus = [Self.external]
        both.embeddedJanus = EmbeddedJanusSettings()
        #expect(throws: TokKitServerError.configuration("set janus or embeddedJanus, not both")) { try both.validate() }
    }

    @Test func embeddedAndNoneModes() throws {
        var none = ServerConfiguration()
        none.embeddedJanus = EmbeddedJanusSettings()
        #expect(try none.resolveJanus(mode: .none) == .none(reason: "--janus-mode none"))
        #expect(none.janus.isEmpty && none.embeddedJanus == nil)

        var embedded = ServerConfiguration()
        let deployment = try embedded.resolveJanus(mode: .embedded, mediaAddress: "198.18.3.4", executable: "/opt/janus")
        var expected = EmbeddedJanusSettings(mediaAddress: "198.18.3.4", executable: "/opt/janus")
        #expect(deployment == .embedded(expected) && embedded.embeddedJanus == expected)
        // The config file's settings are kept, the flags override theirs.
        var file = ServerConfiguration()
        file.embeddedJanus = EmbeddedJanusSettings()
        file.embeddedJanus?.restartBackoffMs = 1_000
        _ = try file.resolveJanus(mode: .embedded, mediaAddress: "198.18.3.4", executable: "/opt/janus")
        expected.restartBackoffMs = 1_000
        #expect(file.embeddedJanus == expected)
    }

    /// auto: embedded only when the executable is there and an address is known; otherwise none, saying why.
    @Test func autoModeFallsBackToNoneWithAReason() throws {
        var missing = ServerConfiguration()
        guard case .none(let reason) = try missing.resolveJanus(mode: .auto, mediaAddress: "198.18.3.4",
                                                                executable: "/nonexistent/janus") else {
            Issue.record("a missing executable chose a Janus")
            return
        }
        #expect(reason.contains("/nonexistent/janus") && missing.embeddedJanus == nil, "\(reason)")

        // scripts/test runs inside `unshare -n`: only lo, so no default address.
        var noAddress = ServerConfiguration()
        guard case .none(let why) = try noAddress.resolveJanus(mode: .auto, executable: "/bin/sh") else {
            Issue.record("no address, yet a Janus was chosen (interfaces: \(String(describing: EmbeddedJanusSettings.defaultMediaAddress())))")
            return
        }
        #expect(why.contains("--janus-interface"), "\(why)")

        var present = ServerConfiguration()
        let chosen = try present.resolveJanus(mode: .auto, mediaAddress: "198.18.3.4", executable: "/bin/sh")
        #expect(chosen == .embedded(EmbeddedJanusSettings(mediaAddress: "198.18.3.4", executable: "/bin/sh")))
    }

    @Test func theConfigFileReadsEmbeddedJanus() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("embedded-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try #"{"embeddedJanus": {"mediaAddress": "198.18.1.2", "port": 8200, "rtpPortRange": [20000, 20100], "restarts": false}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let settings = try #require(try ServerConfiguration.load(path: path).embeddedJanus)
        var expected = EmbeddedJanusSettings(mediaAddress: "198.18.1.2")
        expected.port = 8200
        expected.rtpPortRange = 20_000...20_100
        expected.restarts = false
        #expect(settings == expected)
        var bad = ServerConfiguration(apiKey: "k", apiSecret: "0123456789abcdef")
        bad.embeddedJanus = EmbeddedJanusSettings()
        bad.embeddedJanus?.restartBackoffMs = 0
        #expect(throws: TokKitServerError.self) { try bad.validate() }
    }

    /// The built `tokkit-server`: an unknown mode, contradicting flags and an embedded Janus that is not installed
    /// end it with an error (status ≠ 0, the reason on stderr), before it listens.
    @Test func theCommandRefusesWhatCannotWork() async throws {
        let unknown = try await Self.runServer(["--janus-mode", "sometimes"])
        #expect(unknown.status != 0 && unknown.errors.contains("unknown --janus-mode sometimes"), "\(unknown)")
        let both = try await Self.runServer(["--janus", "ws://127.0.0.1:8188", "--janus-mode", "none"])
        #expect(both.status != 0 && both.errors.contains("exclude each other"), "\(both)")
        let missing = try await Self.runServer(["--janus-mode", "embedded", "--janus-interface", "198.18.7.7",
                                                "--janus-executable", "/nonexistent/janus"])
        #expect(missing.status != 0 && missing.errors.contains("not installed") && !missing.output.contains("listening"),
                "\(missing)")
        let noAddress = try await Self.runServer(["--janus-mode", "embedded"])  // only lo here
        #expect(noAddress.status != 0 && noAddress.errors.contains("non-loopback"), "\(noAddress)")
    }

    /// Runs the built `tokkit-server` with `arguments` to its end (killed after 20 s).
    static func runServer(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("tokkit-server")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw TestFailure("tokkit-server is not built next to the tests: run `swift build --build-tests`")
        }
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--port", "0", "--api-key", "k", "--api-secret", "0123456789abcdef0123"] + arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let pid = process.processIdentifier
        let watchdog = Task {
            try await Task.sleep(for: .seconds(20))
            kill(pid, SIGKILL)
        }
        async let out = Self.readToEnd(output.fileHandleForReading)
        async let err = Self.readToEnd(errors.fileHandleForReading)
        let (stdout, stderr) = await (out, err)
        process.waitUntilExit()
        watchdog.cancel()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    private static func readToEnd(_ handle: FileHandle) async -> Data {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: handle.readDataToEndOfFile()) }.start()
        }
    }
}
