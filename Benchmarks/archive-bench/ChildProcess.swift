import Foundation

/// A child process started with posix_spawn(3) (so its CPU time and peak memory can be read from wait4(2), which
/// Foundation's `Process` does not give), optionally attached: its standard output on a pipe this process reads, its
/// standard input on a pipe this process holds open and never writes (the child sees EOF when this process dies).
///
/// Lifecycle: ``spawn(_:_:attached:)`` starts it; ``wait()`` reaps it once (blocking calls run on a thread of
/// their own, never on the cooperative pool); ``kill()`` ends it.
final class ChildProcess: Sendable {
    /// What wait4 reported.
    struct Exit: Sendable {
        /// The raw wait status (0: exited with 0).
        var status: Int32
        /// User + system CPU seconds of the child.
        var cpuSeconds: Double
        /// Its peak resident set size, in MiB.
        var maxResidentMiB: Double
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let pid: pid_t
    /// The read end of its standard output, or -1 when not attached.
    let output: Int32
    /// The write end of its standard input, or -1 when not attached.
    let input: Int32

    private init(pid: pid_t, output: Int32, input: Int32) {
        self.pid = pid
        self.output = output
        self.input = input
    }

    deinit {
        if output >= 0 { close(output) }
        if input >= 0 { close(input) }
    }

    /// Starts `path` with `arguments` (argv[0] included) and this process's environment.
    static func spawn(_ path: String, _ arguments: [String], attached: Bool = false) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // No signal blocked and default handlers in the child (a dispatch thread blocks signals; a child inherits
        // the mask).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var fds: [Int32] = [-1, -1], stdin: [Int32] = [-1, -1]
        if attached {
            guard Self.closeOnExecPipe(&fds) else { throw Failure(description: "pipe: errno \(errno)") }
            guard Self.closeOnExecPipe(&stdin) else {
                close(fds[0]); close(fds[1])
                throw Failure(description: "pipe: errno \(errno)")
            }
            posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
            posix_spawn_file_actions_adddup2(&actions, stdin[0], 0)
        }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        let result = posix_spawnp(&pid, path, &actions, &attributes, &argv, environ)
        if attached {
            close(fds[1])
            close(stdin[0])
        }
        guard result == 0 else {
            if attached {
                close(fds[0])
                close(stdin[1])
            }
            throw Failure(description: "cannot start \(path): \(String(cString: strerror(result)))")
        }
        return ChildProcess(pid: pid, output: attached ? fds[0] : -1, input: attached ? stdin[1] : -1)
    }

    /// Kills it (SIGKILL: it has nothing to finish).
    func kill() {
        _ = Glibc.kill(pid, SIGKILL)
    }

    /// Reaps the child (wait4) and returns its exit status and usage.
    func wait() async -> Exit {
        let pid = pid
        return await Self.onThread {
            var status: Int32 = 0
            var usage = rusage()
            while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
            return Exit(status: status,
                        cpuSeconds: ProcessUsage.seconds(usage.ru_utime) + ProcessUsage.seconds(usage.ru_stime),
                        maxResidentMiB: Double(usage.ru_maxrss) / 1024)
        }
    }

    /// Reads standard output until `count` lines starting with `prefix` arrived, EOF, or `timeout`; returns the
    /// number of such lines read.
    func awaitLines(prefix: String, count: Int, timeout: Duration) async -> Int {
        let fd = output
        let milliseconds = Int32(timeout.components.seconds * 1_000)
        return await Self.onThread {
            guard fd >= 0 else { return 0 }
            let deadline = ContinuousClock.now + .milliseconds(Int(milliseconds))
            var buffer = [UInt8](repeating: 0, count: 4096), pending: [UInt8] = [], found = 0
            while found < count, ContinuousClock.now < deadline {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 200) >= 0 || errno == EINTR else { break }
                guard poller.revents != 0 else { continue }
                let n = read(fd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                pending += buffer[0..<n]
                while let newline = pending.firstIndex(of: 10) {
                    if String(decoding: pending[..<newline], as: UTF8.self).hasPrefix(prefix) { found += 1 }
                    pending.removeSubrange(...newline)
                }
            }
            return found
        }
    }

    /// pipe(2) with both ends close-on-exec (the child gets its copies through dup2, which clears the flag).
    private static func closeOnExecPipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return true
    }

    /// Runs `body` on a new thread (it blocks) and resumes with its result.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }
}
