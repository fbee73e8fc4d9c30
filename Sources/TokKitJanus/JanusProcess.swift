import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
import Synchronization

/// How ``JanusProcess`` runs Janus.
///
/// Janus gathers ICE candidates only on non-loopback interfaces (it skips `IFF_LOOPBACK`), so ``mediaAddress``
/// must be a real interface's IPv4 address: the machine's LAN address for the embedded server, a network-lab
/// host's veth address in tests. It becomes Janus's `interface` (the address in its SDP) and its whole
/// `ice_enforce_list`, so Janus offers no other candidate.
public struct JanusProcessConfiguration: Sendable, Hashable {
    /// The `janus` executable (Debian's `janus` package: `/usr/bin/janus`).
    public var executable: String
    /// Arguments run before the executable, e.g. `["/usr/sbin/ip", "netns", "exec", NAME]` to run it in a network
    /// namespace (the executable must then replace the launcher: `ip netns exec` does).
    public var launcher: [String]
    /// The non-loopback IPv4 address Janus uses for media (see the type's documentation).
    public var mediaAddress: String
    /// The address its WebSocket transport listens on; nil: ``mediaAddress``. `127.0.0.1` keeps the API on the
    /// machine when the session server runs beside it.
    public var listenAddress: String?
    /// The WebSocket port; nil picks a free one (only without a ``launcher``: in another namespace, 8188).
    public var port: Int?
    /// The API secret every request must carry (`api_secret`); random by default, nil for none.
    public var apiSecret: String?
    /// The VideoRoom plugin's `admin_key`, needed to create rooms; random by default, nil for none.
    public var videoRoomAdminKey: String?
    /// Seconds without a request after which Janus ends a session (`session_timeout`).
    public var sessionTimeout: Int
    /// UDP ports for media (`rtp_port_range`); nil: any.
    public var rtpPortRange: ClosedRange<Int>?
    /// Janus's log level, 0-7 (4: info).
    public var debugLevel: Int
    /// The folder holding Janus's `plugins/` and `transports/`; nil: found among the usual Debian paths.
    public var libraryFolder: String?
    /// How long ``JanusProcess/start(_:logger:)`` waits for Janus to answer `info`.
    public var startTimeout: Duration
    /// Janus's `server_name` (in `info`).
    public var serverName: String
    /// Whether Janus is killed (SIGKILL) when this process dies, even by SIGKILL (`PR_SET_PDEATHSIG`, set by
    /// ``setpriv`` before Janus runs; see ``JanusProcess``): on by default, so no Janus outlives its server.
    public var diesWithParent = true

    /// util-linux's `setpriv`, which runs Janus with its parent-death signal set: its path in `PATH`
    /// (`/usr/local/bin:/usr/bin:/bin` when `PATH` is unset), nil when it is not there.
    public static var setpriv: String? { findExecutable("setpriv") }

    /// The first executable regular file named `name` in the absolute folders of `searchPath` (a `PATH`; nil:
    /// ``searchPath``); nil when none is. Relative folders (`.`, `bin`) are skipped: what runs must not depend
    /// on the directory the server was started in.
    static func findExecutable(_ name: String, searchPath: String? = nil) -> String? {
        for folder in (searchPath ?? Self.searchPath).split(separator: ":", omittingEmptySubsequences: true)
        where folder.hasPrefix("/") {
            let candidate = folder.hasSuffix("/") ? String(folder) + name : String(folder) + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue
            else { continue }
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// This process's `PATH`, `/usr/local/bin:/usr/bin:/bin` when unset.
    static var searchPath: String { ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin" }

    /// A configuration for a Janus using `mediaAddress` (a non-loopback IPv4 address) for media; the other
    /// values as documented on each property.
    public init(mediaAddress: String, executable: String = "/usr/bin/janus", launcher: [String] = [],
                listenAddress: String? = nil, port: Int? = nil,
                apiSecret: String? = JanusProcessConfiguration.randomSecret(),
                videoRoomAdminKey: String? = JanusProcessConfiguration.randomSecret(), sessionTimeout: Int = 60,
                rtpPortRange: ClosedRange<Int>? = nil, debugLevel: Int = 4, libraryFolder: String? = nil,
                startTimeout: Duration = .seconds(15), serverName: String = "tokkit-janus") {
        self.mediaAddress = mediaAddress
        self.executable = executable
        self.launcher = launcher
        self.listenAddress = listenAddress
        self.port = port
        self.apiSecret = apiSecret
        self.videoRoomAdminKey = videoRoomAdminKey
        self.sessionTimeout = sessionTimeout
        self.rtpPortRange = rtpPortRange
        self.debugLevel = debugLevel
        self.libraryFolder = libraryFolder
        self.startTimeout = startTimeout
        self.serverName = serverName
    }

    /// 32 random alphanumeric characters.
    public static func randomSecret() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<32).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    /// Folders where Debian and source builds put Janus's plugins.
    public static let libraryFolderCandidates = [
        "/usr/lib/x86_64-linux-gnu/janus", "/usr/lib/aarch64-linux-gnu/janus", "/usr/lib/janus",
        "/usr/local/lib/janus", "/opt/janus/lib/janus",
    ]

    /// Throws ``JanusError/invalidConfiguration(_:)`` for what cannot work (``JanusProcess/start(_:logger:)``
    /// checks it first).
    public func validate() throws(JanusError) {
        guard let octets = Self.ipv4(mediaAddress) else {
            throw .invalidConfiguration("media address \(mediaAddress) is not an IPv4 address")
        }
        if octets[0] == 127 {
            throw .invalidConfiguration("media address \(mediaAddress) is loopback: Janus gathers no ICE candidate "
                                        + "on loopback interfaces; give it a real interface's address")
        }
        if octets == [0, 0, 0, 0] { throw .invalidConfiguration("media address 0.0.0.0 is not an interface") }
        if let listenAddress, Self.ipv4(listenAddress) == nil {
            throw .invalidConfiguration("listen address \(listenAddress) is not an IPv4 address")
        }
        if let port, !(1...65535).contains(port) { throw .invalidConfiguration("port \(port) is not 1...65535") }
        if let range = rtpPortRange, range.lowerBound < 1 || range.upperBound > 65535 {
            throw .invalidConfiguration("rtp port range \(range) is not within 1...65535")
        }
        guard (0...7).contains(debugLevel) else { throw .invalidConfiguration("debug level \(debugLevel) is not 0...7") }
        guard sessionTimeout > 0 else { throw .invalidConfiguration("session timeout must be positive") }
        for secret in [apiSecret, videoRoomAdminKey].compactMap({ $0 }) where !Self.isPlain(secret) {
            throw .invalidConfiguration("secrets must be letters and digits only")
        }
        guard Self.isPlain(serverName.replacingOccurrences(of: "-", with: "")) else {
            throw .invalidConfiguration("server name must be letters, digits and dashes")
        }
    }

    static func ipv4(_ text: String) -> [Int]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let octets = parts.compactMap { p -> Int? in
            guard !p.isEmpty, p.count <= 3, p.allSatisfy(\.isASCII), let v = Int(p), (0...255).contains(v) else { return nil }
            return v
        }
        return octets.count == 4 ? octets : nil
    }

    private static func isPlain(_ s: String) -> Bool {
        !s.isEmpty && s.unicodeScalars.allSatisfy { ($0.isASCII && CharacterSet.alphanumerics.contains($0)) }
    }

    /// The configuration files for a Janus whose folders are under `directory` (`directory/plugins` holding only
    /// the VideoRoom plugin, `directory/transports` only the WebSockets transport, empty `events` and `loggers`),
    /// listening on `port`: file name → contents.
    func files(directory: String, port: Int) -> [String: String] {
        let listen = listenAddress ?? mediaAddress
        var general = """
            \tconfigs_folder = "\(directory)"
            \tplugins_folder = "\(directory)/plugins"
            \ttransports_folder = "\(directory)/transports"
            \tevents_folder = "\(directory)/events"
            \tloggers_folder = "\(directory)/loggers"
            \tdebug_level = \(debugLevel)
            \tdebug_colors = false
            \tinterface = "\(mediaAddress)"
            \tserver_name = "\(serverName)"
            \tsession_timeout = \(sessionTimeout)
            \treclaim_session_timeout = 0
            \thide_dependencies = true
            \texit_on_dl_error = true
            \tprotected_folders = ["/bin", "/boot", "/dev", "/etc", "/lib", "/proc", "/sbin", "/sys", "/usr", "/var"]

            """
        if let apiSecret { general += "\tapi_secret = \"\(apiSecret)\"\n" }
        var media = "\tipv6 = false\n"
        if let range = rtpPortRange { media += "\trtp_port_range = \"\(range.lowerBound)-\(range.upperBound)\"\n" }
        let janus = """
            # Generated by TokKit (JanusProcess): only the VideoRoom plugin and the WebSockets transport, no admin API.
            general: {
            \(general)}
            certificates: {
            }
            media: {
            \(media)}
            nat: {
            \tnice_debug = false
            \tignore_mdns = true
            \tice_enforce_list = "\(mediaAddress)"
            }
            plugins: {
            }
            transports: {
            }
            loggers: {
            }
            events: {
            \tbroadcast = false
            }

            """
        let websockets = """
            # Generated by TokKit (JanusProcess).
            general: {
            \tjson = "compact"
            \tevents = false
            \tws = true
            \tws_port = \(port)
            \tws_ip = "\(listen)"
            \twss = false
            }
            admin: {
            \tadmin_ws = false
            \tadmin_wss = false
            }

            """
        var videoroom = "# Generated by TokKit (JanusProcess): rooms are created through the API.\ngeneral: {\n"
        videoroom += "\tevents = false\n"
        if let key = videoRoomAdminKey { videoroom += "\tadmin_key = \"\(key)\"\n" }
        videoroom += "}\n"
        return [
            "janus.jcfg": janus,
            "janus.transport.websockets.jcfg": websockets,
            "janus.plugin.videoroom.jcfg": videoroom,
        ]
    }
}

/// A Janus child process run from a generated configuration: started, checked until it answers, watched, stopped.
///
/// ``start(_:logger:)`` writes a fresh configuration folder (``JanusProcessConfiguration/files(directory:port:)``:
/// `janus.jcfg` with the media address as `interface` and `ice_enforce_list`, only the VideoRoom plugin and the
/// WebSockets transport, no admin API, the API secret and the VideoRoom admin key), starts `janus -C … -F …` and
/// waits until a ``JanusConnection`` gets an `info` reply (bounded by ``JanusProcessConfiguration/startTimeout``).
/// Its output is kept (the last lines, ``logTail``). The process is not restarted here: its exit is reported
/// (``exitStatus``, ``waitForExit()``) and whoever owns it (the session server) decides what to do.
///
/// Threading: any method from any task; output is read on a thread of its own, exit is reported by Foundation's
/// termination handler; nothing blocks the cooperative pool.
public final class JanusProcess: Sendable {
    /// The configuration it runs with (with the port chosen).
    public let configuration: JanusProcessConfiguration
    /// The WebSocket URL of its API (`ws://address:port`).
    public let url: String
    /// The process id (Janus's own, also behind `ip netns exec`).
    public let pid: Int32
    /// The generated configuration folder (deleted by ``stop(grace:)``).
    public let configurationDirectory: String
    /// From launch to the first `info` reply.
    public let startupTime: Duration

    private struct Exit {
        var status: Int32?
        var waiters: [UInt64: CheckedContinuation<Int32?, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }
    /// Set by Foundation's termination handler (its own thread).
    private final class ExitState: Sendable {
        let state = Mutex(Exit())
        func exited(_ status: Int32) {
            let waiters = state.withLock { e -> [CheckedContinuation<Int32?, Never>] in
                e.status = status
                defer { e.waiters = [:] }
                return Array(e.waiters.values)
            }
            for waiter in waiters { waiter.resume(returning: status) }
        }
    }
    private let exit: ExitState
    private let output: OutputTail

    private init(configuration: JanusProcessConfiguration, url: String, pid: Int32, directory: String,
                 startupTime: Duration, exit: ExitState, output: OutputTail, reaper: Reaper) {
        self.reaper = reaper
        self.configuration = configuration
        self.url = url
        self.pid = pid
        self.configurationDirectory = directory
        self.startupTime = startupTime
        self.exit = exit
        self.output = output
    }

    /// Kills the child when the last ``JanusProcess`` value for it goes: an owner that drops the process without
    /// ``stop(grace:)`` (a crash path, a forgotten `defer`) must not leave Janus running. SIGKILL (a deinit cannot
    /// wait for a graceful exit), and the configuration folder (which holds the API secret) is removed.
    private final class Reaper: Sendable {
        let pid: Int32
        let directory: String
        let exit: ExitState

        init(pid: Int32, directory: String, exit: ExitState) {
            self.pid = pid
            self.directory = directory
            self.exit = exit
        }

        deinit {
            if exit.state.withLock({ $0.status == nil }) { Glibc.kill(pid, SIGKILL) }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }
    private let reaper: Reaper

    /// What ``ChildLauncher`` hands back: the running process and its output pipe (only this function uses them).
    private struct Spawned: @unchecked Sendable {
        let process: Process?
        let pipe: Pipe
        let error: String?
    }

    /// `argv` run through `setpriv --pdeathsig KILL --` (found in `searchPath`, a `PATH`; nil: this process's), so
    /// the child is killed when this process dies. Throws ``JanusError/notInstalled(_:)`` naming `setpriv` and
    /// util-linux when it is not found: Janus is never started without it silently.
    static func dyingWithParent(_ argv: [String], searchPath: String? = nil) throws(JanusError) -> [String] {
        guard let setpriv = JanusProcessConfiguration.findExecutable("setpriv", searchPath: searchPath) else {
            let path = searchPath ?? JanusProcessConfiguration.searchPath
            throw .notInstalled("setpriv (util-linux, not found in PATH \(path); needed for diesWithParent)")
        }
        return [setpriv, "--pdeathsig", "KILL", "--"] + argv
    }

    /// Starts Janus and returns once it answers `info`. Throws ``JanusError/notInstalled(_:)`` (no executable,
    /// plugin or transport), ``JanusError/invalidConfiguration(_:)``, or ``JanusError/processFailed(status:log:)``
    /// (it exited, or did not answer within the start timeout: it is then killed).
    public static func start(_ configuration: JanusProcessConfiguration,
                             logger: Logger = Logger(label: "tokkit.janus.process")) async throws(JanusError)
        -> JanusProcess {
        try configuration.validate()
        let fm = FileManager.default
        guard fm.isExecutableFile(atPath: configuration.executable) else {
            throw .notInstalled(configuration.executable)
        }
        if let launcher = configuration.launcher.first, !fm.isExecutableFile(atPath: launcher) {
            throw .notInstalled(launcher)
        }
        let library = try findLibraryFolder(configuration.libraryFolder)
        var configuration = configuration
        if configuration.port == nil {
            configuration.port = configuration.launcher.isEmpty
                ? try freePort(on: configuration.listenAddress ?? configuration.mediaAddress) : 8188
        }
        let port = configuration.port ?? 8188
        let directory = try makeDirectory(configuration, library: library, port: port)
        let host = configuration.listenAddress ?? configuration.mediaAddress
        let url = "ws://\(host):\(port)"

        // Dying with the parent (Docs/Routing.md, "Deployment"): setpriv sets PR_SET_PDEATHSIG (SIGKILL) and execs
        // the launcher or Janus in its place (same pid); the spawn happens on ChildLauncher's thread, which lives as
        // long as this process (the signal follows the spawning thread's death, not the process's).
        var argv = configuration.launcher + [configuration.executable, "-C", directory + "/janus.jcfg",
                                             "-F", directory, "-o"]
        if configuration.diesWithParent {
            do throws(JanusError) {
                argv = try dyingWithParent(argv)
            } catch {
                try? fm.removeItem(atPath: directory)
                throw error
            }
        }
        let exit = ExitState()
        let launched = ContinuousClock.now
        let spawned = await ChildLauncher.shared.run { [argv] () -> Spawned in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: argv[0])
            process.arguments = Array(argv.dropFirst())
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            process.standardInput = FileHandle.nullDevice
            process.terminationHandler = { p in exit.exited(p.terminationStatus) }
            do {
                // A child inherits the spawning thread's signal mask, and threads may block SIGTERM and others
                // (libdispatch's workers do): Janus would never see the SIGTERM of `stop`. Unblock the signals
                // Janus handles on this thread for the spawn only.
                var janusSignals = sigset_t(), previous = sigset_t()
                sigemptyset(&janusSignals)
                for signal in [SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2] { sigaddset(&janusSignals, signal) }
                pthread_sigmask(SIG_UNBLOCK, &janusSignals, &previous)
                defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
                try process.run()
            } catch {
                return Spawned(process: nil, pipe: pipe, error: "\(error)")
            }
            return Spawned(process: process, pipe: pipe, error: nil)
        }
        guard let process = spawned.process else {
            try? fm.removeItem(atPath: directory)
            throw .processFailed(status: -1, log: "cannot launch \(argv.joined(separator: " ")): \(spawned.error ?? "?")")
        }
        let pipe = spawned.pipe
        try? pipe.fileHandleForWriting.close()
        let output = OutputTail(reading: dup(pipe.fileHandleForReading.fileDescriptor), capacity: 400)
        try? pipe.fileHandleForReading.close()
        let reaper = Reaper(pid: process.processIdentifier, directory: directory, exit: exit)
        let janus = JanusProcess(configuration: configuration, url: url, pid: process.processIdentifier,
                                 directory: directory, startupTime: .zero, exit: exit, output: output, reaper: reaper)
        // Wait for an `info` reply, retrying the connection until the deadline or the process's exit.
        let deadline = launched + configuration.startTimeout
        var lastError: JanusError?
        while ContinuousClock.now < deadline {
            if let status = janus.exitStatus {
                try? fm.removeItem(atPath: directory)
                throw .processFailed(status: status, log: output.tail(40))
            }
            let remaining = deadline - ContinuousClock.now
            do throws(JanusError) {
                let probe = try await JanusConnection.connect(
                    to: url, options: .init(apiSecret: configuration.apiSecret,
                                            connectTimeout: min(remaining, .seconds(2))), logger: logger)
                let info = probe.serverInfo
                await probe.close()
                guard info?.plugins.contains(VideoRoom.plugin) == true else {
                    await janus.stop(grace: .milliseconds(500))
                    throw JanusError.processFailed(status: -1, log: "Janus answered without the VideoRoom plugin: "
                                                   + "\(info?.plugins ?? [])\n" + output.tail(40))
                }
                let started = JanusProcess(configuration: configuration, url: url, pid: janus.pid,
                                           directory: directory, startupTime: ContinuousClock.now - launched,
                                           exit: exit, output: output, reaper: reaper)
                logger.info("janus \(info?.versionString ?? "?") pid \(janus.pid) answers at \(url) after \(started.startupTime)")
                return started
            } catch {
                if case .processFailed = error { throw error }
                lastError = error
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        await janus.stop(grace: .milliseconds(500))
        throw .processFailed(status: janus.exitStatus ?? -1,
                             log: "no answer at \(url) within \(configuration.startTimeout) (\(lastError.map { "\($0)" } ?? "-"))\n"
                                + output.tail(40))
    }

    /// The exit status, once it has exited (a signal's number for a kill, as Foundation reports it).
    public var exitStatus: Int32? { exit.state.withLock { $0.status } }
    /// Whether it is still running.
    public var isRunning: Bool { exitStatus == nil }
    /// The last lines Janus wrote (stdout and stderr), oldest first.
    public func logTail(_ lines: Int = 40) -> String { output.tail(lines) }

    /// Connects to this Janus with its API secret.
    public func connect(options: JanusConnection.Options = .init(),
                        logger: Logger = Logger(label: "tokkit.janus")) async throws(JanusError) -> JanusConnection {
        var options = options
        options.apiSecret = configuration.apiSecret
        return try await JanusConnection.connect(to: url, options: options, logger: logger)
    }

    /// Waits until it exits and returns the status.
    public func waitForExit() async -> Int32 {
        await waitForExit(cancellable: true) ?? -1
    }

    /// Waits until it exits, at most `timeout`; nil if it is still running.
    @discardableResult
    public func waitForExit(timeout: Duration) async -> Int32? {
        if let status = exitStatus { return status }
        return await withTaskGroup(of: Int32?.self) { group in
            group.addTask { await self.waitForExit(cancellable: true) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? exitStatus
        }
    }

    private func waitForExit(cancellable: Bool) async -> Int32? {
        let key = exit.state.withLock { e -> UInt64 in
            e.nextWaiter += 1
            return e.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (k: CheckedContinuation<Int32?, Never>) in
                let now: Int32?? = exit.state.withLock { e in
                    if let status = e.status { return .some(status) }
                    if Task.isCancelled { return .some(nil) }
                    e.waiters[key] = k
                    return nil
                }
                if let now { k.resume(returning: now) }
            }
        } onCancel: {
            exit.state.withLock { $0.waiters.removeValue(forKey: key) }?.resume(returning: nil)
        }
    }

    /// Stops Janus: SIGTERM, SIGKILL after `grace`; waits (bounded) for the exit and deletes the configuration
    /// folder. Idempotent.
    public func stop(grace: Duration = .seconds(3)) async {
        if isRunning {
            Glibc.kill(pid, SIGTERM)
            if await waitForExit(timeout: grace) == nil {
                Glibc.kill(pid, SIGKILL)
                await waitForExit(timeout: .seconds(2))
            }
        }
        try? FileManager.default.removeItem(atPath: configurationDirectory)
    }

    /// Kills Janus at once (SIGKILL), as a crash would; the configuration folder stays until ``stop(grace:)``.
    public func kill() {
        if isRunning { Glibc.kill(pid, SIGKILL) }
    }

    // MARK: - Helpers

    static func findLibraryFolder(_ given: String?) throws(JanusError) -> String {
        let fm = FileManager.default
        let candidates = given.map { [$0] } ?? JanusProcessConfiguration.libraryFolderCandidates
        for folder in candidates where fm.fileExists(atPath: folder + "/plugins/libjanus_videoroom.so") {
            guard fm.fileExists(atPath: folder + "/transports/libjanus_websockets.so") else {
                throw .notInstalled(folder + "/transports/libjanus_websockets.so")
            }
            return folder
        }
        throw .notInstalled("libjanus_videoroom.so (looked in \(candidates.joined(separator: ", ")))")
    }

    private static func makeDirectory(_ configuration: JanusProcessConfiguration, library: String, port: Int)
        throws(JanusError) -> String {
        let fm = FileManager.default
        let directory = fm.temporaryDirectory.appendingPathComponent("tokkit-janus-\(UUID().uuidString.prefix(8))").path
        do {
            for sub in ["", "/plugins", "/transports", "/events", "/loggers"] {
                try fm.createDirectory(atPath: directory + sub, withIntermediateDirectories: true)
            }
            try fm.createSymbolicLink(atPath: directory + "/plugins/libjanus_videoroom.so",
                                      withDestinationPath: library + "/plugins/libjanus_videoroom.so")
            try fm.createSymbolicLink(atPath: directory + "/transports/libjanus_websockets.so",
                                      withDestinationPath: library + "/transports/libjanus_websockets.so")
            for (name, contents) in configuration.files(directory: directory, port: port) {
                try contents.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
            }
            // The files hold the API secret and the admin key.
            try fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory)
        } catch {
            try? fm.removeItem(atPath: directory)
            throw .processFailed(status: -1, log: "cannot write the configuration in \(directory): \(error)")
        }
        return directory
    }

    /// A TCP port free on `address` now (bound to port 0 and released: Janus binds it a moment later).
    public static func freePort(on address: String) throws(JanusError) -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .invalidConfiguration("cannot open a socket to find a free port") }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        guard inet_pton(AF_INET, address, &addr.sin_addr) == 1 else {
            throw .invalidConfiguration("\(address) is not an IPv4 address")
        }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw .invalidConfiguration("cannot bind \(address) (errno \(errno)) to find a port") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw .invalidConfiguration("getsockname failed (errno \(errno))") }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}

/// A pipe read to its end on a thread of its own, keeping the last `capacity` lines.
final class OutputTail: Sendable {
    private struct State {
        var lines: [String] = []
        var partial = ""
    }
    private let state = Mutex(State())
    private let capacity: Int

    init(reading descriptor: Int32, capacity: Int) {
        self.capacity = capacity
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                append(String(decoding: buffer[0..<n], as: UTF8.self))
            }
            close(descriptor)
        }
        thread.name = "janus-output"
        thread.start()
    }

    func tail(_ count: Int) -> String {
        state.withLock { s in (s.lines.suffix(count) + (s.partial.isEmpty ? [] : [s.partial])).joined(separator: "\n") }
    }

    private func append(_ text: String) {
        state.withLock { s in
            s.partial += text
            while let newline = s.partial.firstIndex(of: "\n") {
                s.lines.append(String(s.partial[..<newline]))
                s.partial.removeSubrange(...newline)
            }
            if s.lines.count > capacity { s.lines.removeFirst(s.lines.count - capacity) }
            if s.partial.utf8.count > 1 << 16 { s.partial = "" }
        }
    }
}
