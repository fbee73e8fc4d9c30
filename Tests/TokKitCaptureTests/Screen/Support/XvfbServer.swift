#if canImport(Glibc)
import Glibc
#endif
import CX11

/// A private Xvfb for one test: a free display number, a bounded wait until it accepts clients, killed on
/// ``stop()`` or deinit. A missing Xvfb binary is an error, never a skip.
final class XvfbServer: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let binary = "/usr/bin/Xvfb"

    let display: String
    let width: Int, height: Int
    /// A connection to the server, opened to prove it is ready and kept for drawing (until ``closeClient()``).
    var client: XDrawingClient { openClient! }
    private var openClient: XDrawingClient?
    private let pid: pid_t
    private var exited = false

    /// Starts `Xvfb :N -screen 0 WxHx24 -nolisten tcp` plus `arguments` (default `-noreset`, so the screen
    /// survives clients disconnecting).
    init(width: Int = 320, height: Int = 240, arguments: [String] = ["-noreset"]) throws {
        guard access(Self.binary, X_OK) == 0 else {
            throw Failure(description: "\(Self.binary) not found: install the xvfb package (scripts/bootstrap --tests)")
        }
        self.width = width
        self.height = height
        var lastError = "no free display number"
        for _ in 0..<8 {
            let n = Int.random(in: 200..<2000)
            guard access("/tmp/.X11-unix/X\(n)", F_OK) != 0, access("/tmp/.X\(n)-lock", F_OK) != 0 else { continue }
            let pid = try Self.spawn([Self.binary, ":\(n)", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp"] + arguments)
            var status: Int32 = 0
            var opened: XDrawingClient?
            var gone = false
            Self.waitUntil(timeout: .seconds(10)) {
                if waitpid(pid, &status, WNOHANG) == pid { gone = true; return true }
                guard access("/tmp/.X11-unix/X\(n)", F_OK) == 0 else { return false }
                opened = XDrawingClient(display: ":\(n)")
                return opened != nil
            }
            if let opened {
                display = ":\(n)"
                openClient = opened
                self.pid = pid
                return
            }
            lastError = gone ? "Xvfb :\(n) exited with status \(status)" : "Xvfb :\(n) not ready after 10 s"
            if !gone { kill(pid, SIGKILL); waitpid(pid, &status, 0) }
        }
        throw Failure(description: "could not start Xvfb: \(lastError)")
    }

    deinit { stop() }

    /// Whether the server process is still alive (reaps it once it has exited).
    var isRunning: Bool {
        if exited { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { exited = true }
        return !exited
    }

    /// Disconnects the test's own client.
    func closeClient() { openClient = nil }

    /// Terminates the server (SIGTERM, then SIGKILL after 5 s) and reaps it.
    func stop() {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        if !Self.waitUntil(timeout: .seconds(5), { !isRunning }) {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            exited = true
        }
    }

    /// Kills the server at once, as a crash would.
    func crash() {
        guard isRunning else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        exited = true
    }

    /// Shrinks the screen with `xrandr --fb` (Xvfb cannot grow past its start size). xrandr complains that the
    /// output no longer fits and exits non-zero, but the root window is resized: callers check the effect.
    func shrinkScreen(width: Int, height: Int) throws {
        let xrandr = "/usr/bin/xrandr"
        guard access(xrandr, X_OK) == 0 else {
            throw Failure(description: "\(xrandr) not found: install x11-xserver-utils (scripts/bootstrap --tests)")
        }
        let child = try Self.spawn([xrandr, "-display", display, "--fb", "\(width)x\(height)"])
        var status: Int32 = 0
        guard Self.waitUntil(timeout: .seconds(10), { waitpid(child, &status, WNOHANG) == child }) else {
            kill(child, SIGKILL)
            waitpid(child, &status, 0)
            throw Failure(description: "xrandr did not finish within 10 s")
        }
    }

    /// Polls `condition` every 5 ms until it holds or `timeout` passes; returns whether it held.
    @discardableResult
    static func waitUntil(timeout: Duration = .seconds(10), _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            usleep(5_000)
        }
        return condition()
    }

    /// Starts `argv` with stdout and stderr on /dev/null, no signal blocked and default signal handlers (a test
    /// runs on a dispatch thread that blocks signals, and a child inherits that mask: SIGTERM would be ignored).
    private static func spawn(_ argv: [String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], &actions, &attributes, cArgs, environ)
        guard rc == 0 else { throw Failure(description: "posix_spawn \(argv[0]) failed: errno \(rc)") }
        return pid
    }
}
