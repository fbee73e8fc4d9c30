#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import TokKitSessionTestSupport

/// A headless Chromium (NOTES.md flags: fake camera/microphone, loopback WebRTC) showing one page, whose
/// `console.log` lines are read from its stderr. Minimal on purpose: the shared `TokKitChromiumSupport` target
/// (branch `chromium`) replaces it once merged.
///
/// Chromium and its helper processes run in their own process group; ``stop()`` (also run by a watchdog after
/// `lifetime`) kills the whole group and reaps the main process. Thread-safe.
final class HeadlessChromium: Sendable {
    static let executable = "/usr/lib/chromium/chromium"

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let pid: pid_t
    private let profile: String
    private let output = Mutex(Output())
    private let stopped = Mutex(false)

    private struct Output {
        var console: [String] = []
        var tail: [String] = []  // last stderr lines, for failure messages
    }

    /// Launches Chromium on `url`. Throws (never skips) when Chromium is missing or cannot start.
    init(url: String, lifetime: Duration = .seconds(90)) throws {
        guard access(Self.executable, X_OK) == 0 else {
            throw Failure(description: "Chromium is required for the browser tests and is missing: \(Self.executable) "
                + "(install it with `bash scripts/bootstrap --tests`, Debian package `chromium`)")
        }
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("tokkit-chromium-\(UUID().uuidString)").path
        let arguments = [
            Self.executable, "--headless=new", "--no-sandbox", "--user-data-dir=\(profile)", "--no-first-run",
            "--no-default-browser-check", "--disable-gpu", "--mute-audio",
            "--use-fake-device-for-media-stream=fps=30", "--use-fake-ui-for-media-stream",
            "--allow-loopback-in-peer-connection", "--autoplay-policy=no-user-gesture-required",
            "--enable-logging=stderr", "--v=0", url,
        ]
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw Failure(description: "pipe: errno \(errno)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 2)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var child: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let rc = posix_spawn(&child, Self.executable, &actions, &attributes, argv, environ)
        close(pipe[1])
        guard rc == 0 else {
            close(pipe[0])
            throw Failure(description: "posix_spawn \(Self.executable): \(String(cString: strerror(rc)))")
        }
        pid = child
        let readFD = pipe[0]
        Thread.detachNewThread { [self] in readLines(from: readFD) }
        let watchdog = Thread { [weak self] in
            let deadline = ContinuousClock.now + lifetime
            while ContinuousClock.now < deadline {
                guard let self, !self.stopped.withLock({ $0 }) else { return }
                Thread.sleep(forTimeInterval: 0.1)
            }
            self?.stop()
        }
        watchdog.name = "chromium-watchdog"
        watchdog.start()
    }

    deinit { stop() }

    /// Every console message so far (the text of `console.log(...)`), in order.
    var console: [String] { output.withLock { $0.console } }

    /// The last stderr lines, for failure messages.
    var stderrTail: String { output.withLock { $0.tail.joined(separator: "\n") } }

    /// Waits (bounded) until a console message satisfies `predicate`; returns it, or nil on timeout.
    func waitForConsole(timeout: Duration = .seconds(20), _ predicate: @Sendable (String) -> Bool) async -> String? {
        var found: String?
        _ = await eventually(timeout: timeout) {
            found = self.console.first(where: predicate)
            return found != nil
        }
        return found
    }

    /// Kills Chromium's process group and reaps it (bounded); removes the profile. Idempotent.
    func stop() {
        guard !stopped.withLock({ let was = $0; $0 = true; return was }) else { return }
        kill(-pid, SIGTERM)
        var status: Int32 = 0
        var reaped = false
        for _ in 0..<100 {  // up to 2 s for a clean exit
            if waitpid(pid, &status, WNOHANG) == pid { reaped = true; break }
            usleep(20_000)
        }
        kill(-pid, SIGKILL)
        if !reaped { waitpid(pid, &status, 0) }
        try? FileManager.default.removeItem(atPath: profile)
    }

    private func readLines(from fd: Int32) {
        defer { close(fd) }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return }
            pending.append(contentsOf: buffer[0..<n])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                record(line)
            }
        }
    }

    private func record(_ line: String) {
        let message = Self.consoleMessage(line)
        output.withLock { out in
            if let message { out.console.append(message) }
            out.tail.append(line)
            if out.tail.count > 200 { out.tail.removeFirst(out.tail.count - 200) }
        }
    }

    /// The message of a Chromium log line `[…:INFO:CONSOLE…] "text", source: URL (line)`, or nil.
    static func consoleMessage(_ line: String) -> String? {
        guard line.contains(":CONSOLE"), let open = line.range(of: "] \""),
              let close = line.range(of: "\", source: ", options: .backwards), open.upperBound <= close.lowerBound
        else { return nil }
        return String(line[open.upperBound..<close.lowerBound])
    }
}
