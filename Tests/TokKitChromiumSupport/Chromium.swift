import Foundation
import Synchronization

/// One headless Chromium process (`--headless=new`, fake camera and microphone, loopback WebRTC allowed) in a
/// fresh temporary profile, driven over the DevTools protocol.
///
/// Lifecycle: ``launch(executable:arguments:timeout:)`` starts it and waits (bounded) for its DevTools endpoint;
/// ``newPage(url:)`` opens tabs; ``close(within:)`` asks it to quit, escalates to SIGTERM then SIGKILL at the
/// deadline, and removes the profile. ``withBrowser(arguments:_:)`` pairs the two. A missing executable throws
/// ``ChromiumError/notInstalled(path:)``: tests fail loudly, they never skip.
///
/// Threading: any method from any task; nothing blocks the cooperative pool (stderr is read on its own thread,
/// exit is noticed by Foundation's termination handler, waits poll with a deadline).
public final class Chromium: Sendable {
    /// Where Debian's `chromium` package puts the real binary (`/usr/bin/chromium` is a shell wrapper).
    public static let defaultExecutable = "/usr/lib/chromium/chromium"

    /// The flags every launch uses (NOTES.md): headless, no sandbox (root in a container), the profile,
    /// DevTools on an ephemeral loopback port (accepting the `Origin: ws://127.0.0.1` header swift-websocket
    /// sends), fake media devices at 30 fps, loopback ICE candidates.
    public static func standardArguments(profile: String) -> [String] {
        [
            "--headless=new", "--no-sandbox", "--user-data-dir=\(profile)", "--no-first-run",
            "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1", "--remote-allow-origins=ws://127.0.0.1",
            "--use-fake-device-for-media-stream=fps=30", "--use-fake-ui-for-media-stream",
            "--allow-loopback-in-peer-connection", "--disable-gpu", "--mute-audio",
            "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
        ]
    }

    /// The process id.
    public let pid: Int32
    /// The temporary profile directory, removed by ``close(within:)``.
    public let profile: URL

    private let connection: DevToolsConnection
    private let output: ChromiumOutput
    private let exited: Exit
    private let closed = Atomic<Bool>(false)

    /// Set by Foundation's termination handler (its own thread).
    private final class Exit: Sendable {
        let flag = Atomic<Bool>(false)
        var value: Bool { flag.load(ordering: .acquiring) }
    }

    private init(pid: Int32, profile: URL, connection: DevToolsConnection, output: ChromiumOutput, exited: Exit) {
        self.pid = pid
        self.profile = profile
        self.connection = connection
        self.output = output
        self.exited = exited
    }

    deinit {
        guard !closed.load(ordering: .relaxed) else { return }
        if !exited.value { kill(Self.group(of: pid), SIGKILL) }
        try? FileManager.default.removeItem(at: profile)
    }

    /// Starts Chromium and waits for its DevTools endpoint, at most `timeout`. `arguments` are appended to
    /// ``standardArguments(profile:)`` (a repeated switch takes its last value). `launcher` is a command prefix
    /// (e.g. `ip netns exec HOST`, to run it in a network-lab host); `devToolsURL` maps the endpoint Chromium
    /// announces (always on its own 127.0.0.1) to where this process reaches it (a forwarder's address).
    public static func launch(executable: String = defaultExecutable, arguments: [String] = [],
                              launcher: [String] = [], devToolsURL: @Sendable (String) -> String = { $0 },
                              timeout: Duration = .seconds(30)) async throws(ChromiumError) -> Chromium {
        guard FileManager.default.isExecutableFile(atPath: executable) else { throw .notInstalled(path: executable) }
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("tokkit-chromium-\(UUID())")
        do {
            try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        } catch { throw .launchFailed("cannot create \(profile.path): \(error)") }

        let process = Process()
        let command = launcher + [executable] + standardArguments(profile: profile.path) + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let exited = Exit()
        process.terminationHandler = { _ in exited.flag.store(true, ordering: .releasing) }
        do { try process.run() } catch {
            try? FileManager.default.removeItem(at: profile)
            throw .launchFailed("\(executable): \(error)")
        }
        try? stderr.fileHandleForWriting.close()  // ours; Chromium keeps its copy
        let output = ChromiumOutput(reading: dup(stderr.fileHandleForReading.fileDescriptor))
        try? stderr.fileHandleForReading.close()
        let pid = process.processIdentifier

        let deadline = ContinuousClock.now + timeout
        var url = output.devToolsURL
        while url == nil, !exited.value, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
            url = output.devToolsURL
        }
        guard let url else {
            if !exited.value { kill(group(of: pid), SIGKILL) }
            try? FileManager.default.removeItem(at: profile)
            let why = exited.value ? "Chromium exited" : "no endpoint within \(timeout)"
            throw .devToolsUnavailable("\(why); stderr ends with:\n\(output.tail)")
        }
        return Chromium(pid: pid, profile: profile, connection: DevToolsConnection(url: devToolsURL(url)),
                        output: output, exited: exited)
    }

    /// Launches Chromium, runs `body` and closes it whether `body` returned or threw.
    public static func withBrowser<T: Sendable>(arguments: [String] = [],
                                                _ body: (Chromium) async throws -> T) async throws -> T {
        let browser = try await launch(arguments: arguments)
        do {
            let result = try await body(browser)
            await browser.close()
            return result
        } catch {
            await browser.close()
            throw error
        }
    }

    /// Whether the process is still running.
    public var isRunning: Bool { !exited.value }

    /// The last lines Chromium wrote to stderr.
    public var stderrTail: String { output.tail }

    /// Opens a tab on `url` (after attaching to it and enabling `Runtime`, so no console message is missed) and
    /// waits until `document.readyState` is `complete`, at most `timeout`. Without a URL the tab shows an empty
    /// page from a `file://` URL in the profile: a secure context (`about:blank` is not, so it has no
    /// `navigator.mediaDevices`).
    public func newPage(url: String? = nil, timeout: Duration = .seconds(30)) async throws(ChromiumError)
        -> ChromiumPage {
        let url = if let url { url } else { try blankPage() }
        let target = try await connection.send("Target.createTarget", ["url": .string("about:blank")],
                                               timeout: timeout)
        guard let targetID = target["targetId"]?.string else {
            throw .protocolError(method: "Target.createTarget", message: "no targetId in \(target.jsonText)")
        }
        let attached = try await connection.send("Target.attachToTarget",
                                                 ["targetId": .string(targetID), "flatten": .bool(true)],
                                                 timeout: timeout)
        guard let session = attached["sessionId"]?.string else {
            throw .protocolError(method: "Target.attachToTarget", message: "no sessionId in \(attached.jsonText)")
        }
        let page = ChromiumPage(connection: connection, session: session, targetID: targetID,
                                console: connection.consoleMessages(of: session))
        _ = try await connection.send("Runtime.enable", session: session, timeout: timeout)
        if url != "about:blank" { try await page.navigate(to: url, timeout: timeout) }
        return page
    }

    /// `file://…/blank.html` in the profile, written on first use.
    private func blankPage() throws(ChromiumError) -> String {
        let file = profile.appendingPathComponent("blank.html")
        if !FileManager.default.fileExists(atPath: file.path) {
            do {
                try Data("<!doctype html><title>TokKit</title>".utf8).write(to: file)
            } catch { throw .launchFailed("cannot write \(file.path): \(error)") }
        }
        return file.absoluteString
    }

    /// Asks Chromium to quit (`Browser.close`), waits for the exit until `deadline` then sends SIGTERM and
    /// SIGKILL (to its process group when it leads one), closes the DevTools socket and removes the profile.
    /// Idempotent.
    public func close(within deadline: Duration = .seconds(5)) async {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        if isRunning { _ = try? await connection.send("Browser.close", timeout: deadline) }
        let target = Self.group(of: pid)
        if !(await waitForExit(deadline)) {
            kill(target, SIGTERM)
            if !(await waitForExit(.seconds(2))) {
                kill(target, SIGKILL)
                _ = await waitForExit(.seconds(2))
            }
        }
        await connection.close()
        // Helper processes may still be flushing into the profile for a moment.
        for _ in 0..<20 {
            do {
                try FileManager.default.removeItem(at: profile)
                break
            } catch {
                if !FileManager.default.fileExists(atPath: profile.path) { break }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    private func waitForExit(_ timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        return !isRunning
    }

    /// `-pid` when Chromium leads its own process group (signals reach its helpers too), else `pid`.
    private static func group(of pid: Int32) -> Int32 { getpgid(pid) == pid ? -pid : pid }
}
