import Logging
import Synchronization
import TokKitJanus

/// A server's own Janus (``EmbeddedJanusSettings``): started with the server, supervised, stopped with it.
///
/// Its API address, port and secrets are fixed when it is made (``routedConfiguration``), so the routed sessions'
/// ``RoutedMedia`` uses it like any Janus it is given, and a restarted Janus is the same instance to it: when Janus
/// dies, its WebSocket closes, ``RoutedMedia`` fails the routed streams on it (1570) and connects again at the next
/// routed offer, by which time the supervisor has started a new Janus (after ``EmbeddedJanusSettings/restartBackoffMs``,
/// doubling while starts fail, up to ``EmbeddedJanusSettings/maxRestartBackoffMs``).
///
/// Threading: any method from any task. State in a `Mutex` with an explicit enum; the supervisor is one task that
/// waits for the running Janus's exit (Foundation's termination handler), so nothing blocks the cooperative pool.
final class EmbeddedJanus: Sendable {
    private enum State {
        case idle
        case starting
        /// `supervisor` waits for the process's exit and restarts it.
        case running(JanusProcess, supervisor: Task<Void, Never>)
        /// Janus died; `supervisor` is waiting or starting a new one.
        case restarting(supervisor: Task<Void, Never>)
        case exited
        case stopped
    }

    /// How Janus is run (port, secrets and media address fixed).
    let process: JanusProcessConfiguration
    let settings: EmbeddedJanusSettings
    private let logger: Logger
    private let state = Mutex(State.idle)
    private let counters = Mutex((restarts: 0, lastExit: Int32?.none))

    /// Resolves the media address (``EmbeddedJanusSettings/mediaAddress`` or the machine's first non-loopback
    /// IPv4 address) and the API port (a free one on 127.0.0.1 for 0), and draws the secrets. Starts nothing.
    init(settings: EmbeddedJanusSettings, logger: Logger) throws(TokKitServerError) {
        try settings.validate()
        guard let address = settings.mediaAddress ?? EmbeddedJanusSettings.defaultMediaAddress() else {
            throw .configuration("embeddedJanus: this machine has no non-loopback IPv4 address for Janus's media "
                                 + "(Janus gathers no ICE candidate on loopback); set embeddedJanus.mediaAddress")
        }
        let port: Int
        do throws(JanusError) {
            port = settings.port != 0 ? settings.port : try JanusProcess.freePort(on: "127.0.0.1")
        } catch {
            throw .embeddedJanus(error)
        }
        let configuration = JanusProcessConfiguration(
            mediaAddress: address, executable: settings.executable, listenAddress: "127.0.0.1", port: port,
            sessionTimeout: settings.sessionTimeout, rtpPortRange: settings.rtpPortRange,
            debugLevel: settings.debugLevel, libraryFolder: settings.libraryFolder,
            startTimeout: .milliseconds(settings.startTimeoutMs), serverName: "tokkit-embedded-janus")
        do throws(JanusError) {
            try configuration.validate()
        } catch {
            throw .embeddedJanus(error)
        }
        self.process = configuration
        self.settings = settings
        self.logger = logger
    }

    /// The Janus ``RoutedMedia`` drives: this one's URL and secrets.
    var routedConfiguration: RoutedMediaConfiguration {
        RoutedMediaConfiguration(url: "ws://127.0.0.1:\(process.port ?? 0)", apiSecret: process.apiSecret,
                                 adminKey: process.videoRoomAdminKey)
    }

    /// Starts Janus and returns once it answers; then supervises it. Throws what `JanusProcess.start` throws
    /// (``JanusError/notInstalled(_:)`` for a missing executable, plugin or transport,
    /// ``JanusError/processFailed(status:log:)`` for a Janus that exits or never answers within
    /// ``EmbeddedJanusSettings/startTimeoutMs``), leaving nothing running.
    func start() async throws(JanusError) {
        let ready = state.withLock { state -> Bool in
            guard case .idle = state else { return false }
            state = .starting
            return true
        }
        guard ready else { throw .invalidConfiguration("the embedded Janus was already started") }
        let janus: JanusProcess
        do throws(JanusError) {
            janus = try await JanusProcess.start(process, logger: logger)
        } catch {
            state.withLock { $0 = .idle }
            throw error
        }
        let accepted = state.withLock { state -> Bool in
            guard case .starting = state else { return false }  // stop() came meanwhile
            state = .running(janus, supervisor: Task { await self.supervise(janus) })
            return true
        }
        if !accepted { await janus.stop(grace: .seconds(2)) }
        logger.info("embedded janus running", metadata: [
            "pid": "\(janus.pid)", "url": "\(janus.url)", "mediaAddress": "\(process.mediaAddress)",
            "startup": "\(janus.startupTime)"])
    }

    /// Waits for `first` to exit, then (unless stopped) starts Janus again with backoff, for as long as the server
    /// runs. Ends when cancelled by ``stop()``.
    private func supervise(_ first: JanusProcess) async {
        var janus = first
        let initial = Duration.milliseconds(settings.restartBackoffMs)
        let longest = Duration.milliseconds(settings.maxRestartBackoffMs)
        var backoff = initial
        while !Task.isCancelled {
            let began = ContinuousClock.now
            let status = await janus.waitForExit()  // returns at once when cancelled
            if Task.isCancelled { return }
            counters.withLock { $0.lastExit = status }
            logger.error("embedded janus exited", metadata: [
                "pid": "\(janus.pid)", "status": "\(status)", "log": "\(janus.logTail(20))"])
            await janus.stop(grace: .zero)  // its folder goes
            let me = state.withLock { state -> Task<Void, Never>? in
                guard case let .running(_, supervisor) = state else { return nil }
                state = settings.restarts ? .restarting(supervisor: supervisor) : .exited
                return supervisor
            }
            guard me != nil, settings.restarts else { return }
            // A Janus that ran for a minute starts again after the first delay; one dying at once backs off.
            if ContinuousClock.now - began > .seconds(60) { backoff = initial }
            while true {
                do { try await Task.sleep(for: backoff) } catch { return }  // cancelled: stop() is running
                backoff = min(backoff * 2, longest)
                // Not cancellable: JanusProcess.start is bounded by its start timeout, and a cancelled start would
                // spin through its retries.
                let attempt = Task { [process, logger] () async -> Result<JanusProcess, JanusError> in
                    do throws(JanusError) {
                        return .success(try await JanusProcess.start(process, logger: logger))
                    } catch {
                        return .failure(error)
                    }
                }
                switch await attempt.value {
                case .success(let next):
                    let kept = state.withLock { state -> Bool in
                        guard case let .restarting(supervisor) = state else { return false }
                        state = .running(next, supervisor: supervisor)
                        return true
                    }
                    guard kept else {
                        await next.stop(grace: .seconds(2))
                        return
                    }
                    let restarts = counters.withLock { c -> Int in
                        c.restarts += 1
                        return c.restarts
                    }
                    logger.notice("embedded janus restarted", metadata: [
                        "pid": "\(next.pid)", "restarts": "\(restarts)", "startup": "\(next.startupTime)"])
                    janus = next
                case .failure(let error):
                    logger.error("embedded janus did not start again", metadata: [
                        "error": "\(error)", "retryIn": "\(backoff)"])
                    if Task.isCancelled { return }
                    continue
                }
                break
            }
        }
    }

    /// Stops the supervisor and Janus (SIGTERM, SIGKILL after 3 s) and removes its generated files. Idempotent;
    /// returns once no Janus of this server runs.
    func stop() async {
        let (janus, supervisor) = state.withLock { state -> (JanusProcess?, Task<Void, Never>?) in
            defer { state = .stopped }
            switch state {
            case let .running(janus, supervisor): return (janus, supervisor)
            case let .restarting(supervisor): return (nil, supervisor)
            case .idle, .starting, .exited, .stopped: return (nil, nil)
            }
        }
        supervisor?.cancel()
        await supervisor?.value  // a Janus it started meanwhile is stopped by it (the state is `stopped`)
        await janus?.stop(grace: .seconds(3))
    }

    /// The supervisor's state, the running Janus and the counters.
    func status() -> EmbeddedJanusStatus {
        let (kind, janus): (EmbeddedJanusStatus.State, JanusProcess?) = state.withLock { state in
            switch state {
            case .idle: (.idle, nil)
            case .starting: (.starting, nil)
            case let .running(janus, _): (.running, janus)
            case .restarting: (.restarting, nil)
            case .exited: (.exited, nil)
            case .stopped: (.stopped, nil)
            }
        }
        let (restarts, lastExit) = counters.withLock { ($0.restarts, $0.lastExit) }
        return EmbeddedJanusStatus(
            state: kind, pid: janus?.pid, url: routedConfiguration.url, mediaAddress: process.mediaAddress,
            configurationDirectory: janus?.configurationDirectory, restarts: restarts, lastExitStatus: lastExit)
    }
}
