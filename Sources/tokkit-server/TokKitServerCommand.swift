import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import Logging
import UnixSignals
import TokKitProtocol
import TokKitArchiving
import TokKitServer

/// `tokkit-server`: runs the TokKit session server until SIGTERM or SIGINT.
@main
struct TokKitServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokkit-server",
        abstract: "TokKit session server: REST API (sessions, tokens, moderation) and WebSocket signaling.",
        discussion: """
            Flags override the config file; the config file overrides the defaults. The protocol is specified in \
            Docs/Protocol.md. Stops gracefully on SIGTERM or SIGINT (every socket is closed with 1001).
            """)

    @Option(name: .long, help: "JSON config file (fields: host, port, apiKey, apiSecret, heartbeatIntervalMs, heartbeatTimeoutMs, resumeGraceMs, connectTimeoutMs, closeTimeoutMs, outboxCapacity, outboxMaxBytes, maxSessions, maxConnectionsPerSession, emptySessionTimeoutMs, archiveIdleStopMs, requestHeadTimeoutMs, requestBodyTimeoutMs, maxHeaderBytes, maxHeaderCount, maxConnections, maxConnectionsPerAddress, quickStart, quickStartRate, quickStartBurst, staticDirectory, archiveDirectory, iceServers, turnSecret, turnCredentialLifetime, janus, embeddedJanus).")
    var config: String?

    @Option(name: .long, help: "Address to listen on (default 127.0.0.1).")
    var host: String?

    @Option(name: .long, help: "Port to listen on; 0 picks a free port (default 0). The bound port is printed.")
    var port: Int?

    @Option(name: .customLong("api-key"), help: "Project API key (or TOKKIT_API_KEY).")
    var apiKey: String?

    @Option(name: .customLong("api-secret"), help: "Project API secret, at least 16 bytes (or TOKKIT_API_SECRET).")
    var apiSecret: String?

    @Option(name: .customLong("static-dir"), help: "Directory of static files served at / (browser client).")
    var staticDirectory: String?

    @Option(name: .customLong("archive-directory"), help: "Directory of the archives (records and WebM files; created if missing). Without it, archiving is off.")
    var archiveDirectory: String?

    @Flag(
        name: .customLong("quick-start"), inversion: .prefixedNo,
        help: ArgumentHelp(
            "Serve the credential-free tutorial calls GET /session, GET /room/{name} and GET /credentials/{id} (default off).",
            discussion: "Anyone who reaches the port can then create sessions and get publisher tokens (rate limited per address: quickStartRate, quickStartBurst); for development, bound to 127.0.0.1."))
    var quickStart: Bool?

    @Option(name: .customLong("stun"), help: "A STUN server URL handed to clients (stun:HOST[:PORT]); repeatable.")
    var stun: [String] = []

    @Option(name: .customLong("turn"), help: ArgumentHelp(
        "A TURN server URL handed to clients with time-limited credentials; repeatable.",
        discussion: "turn:HOST[:PORT][?transport=udp|tcp] or turns:HOST[:PORT]. Needs --turn-secret."))
    var turn: [String] = []

    @Option(name: .customLong("turn-secret"), help: "The TURN server's shared secret, coturn's static-auth-secret (or TOKKIT_TURN_SECRET).")
    var turnSecret: String?

    @Option(name: .customLong("janus"), help: ArgumentHelp(
        "A Janus instance (ws://HOST:PORT, its WebSocket API) that carries routed sessions' media; repeatable.",
        discussion: "Each routed session is placed on the least loaded reachable instance and moves to another if "
            + "its instance is lost. Given here, the list replaces the config file's. Without any, routed sessions "
            + "behave like relayed ones unless --janus-mode starts an embedded one. See Docs/Routing.md."))
    var janus: [String] = []

    @Option(name: .customLong("janus-mode"), help: ArgumentHelp(
        "auto, embedded or none: which Janus carries routed sessions when no --janus is given (default auto).",
        discussion: "auto: the server starts, supervises and stops its own Janus (embedded) when the janus executable is installed and the machine has a non-loopback IPv4 address, and otherwise logs why and relays routed sessions. embedded: the same, but a Janus that cannot start stops the server with an error. none: no Janus, routed sessions are relayed."))
    var janusMode: String = "auto"

    @Option(name: .customLong("janus-interface"), help: "The IPv4 address the embedded Janus uses for ICE (default: the machine's first non-loopback address; Janus ignores loopback interfaces).")
    var janusInterface: String?

    @Option(name: .customLong("janus-executable"), help: "The embedded Janus's executable (default /usr/bin/janus).")
    var janusExecutable: String?

    @Option(name: .customLong("janus-api-secret"), help: "Janus's api_secret, shared by every --janus instance (or TOKKIT_JANUS_API_SECRET).")
    var janusAPISecret: String?

    @Option(name: .customLong("janus-admin-key"), help: "The VideoRoom plugin's admin_key, shared by every --janus instance (or TOKKIT_JANUS_ADMIN_KEY).")
    var janusAdminKey: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (default info).")
    var logLevel: String = "info"

    func run() async throws {
        var settings = ServerConfiguration.standalone  // quick start off, unlike an embedded server
        if let config { settings = try ServerConfiguration.load(path: config, defaults: settings) }
        let environment = ProcessInfoEnvironment.current
        if let host { settings.host = host }
        if let port { settings.port = port }
        if let key = apiKey ?? environment["TOKKIT_API_KEY"] { settings.apiKey = key }
        if let secret = apiSecret ?? environment["TOKKIT_API_SECRET"] { settings.apiSecret = secret }
        if let staticDirectory { settings.staticDirectory = staticDirectory }
        if let archiveDirectory { settings.archiveDirectory = archiveDirectory }
        if let quickStart { settings.quickStart = quickStart }
        if let secret = turnSecret ?? environment["TOKKIT_TURN_SECRET"] { settings.turnSecret = secret }
        if !stun.isEmpty { settings.iceServers.append(ICEServerInfo(urls: stun)) }
        if !turn.isEmpty { settings.iceServers.append(ICEServerInfo(urls: turn)) }
        let external = RoutedMediaConfiguration.list(
            urls: janus, apiSecret: janusAPISecret ?? environment["TOKKIT_JANUS_API_SECRET"],
            adminKey: janusAdminKey ?? environment["TOKKIT_JANUS_ADMIN_KEY"])
        guard let mode = JanusMode(rawValue: janusMode) else {
            throw ValidationError("unknown --janus-mode \(janusMode) (auto, embedded or none)")
        }
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("unknown log level \(logLevel)")
        }
        var logger = Logger(label: "tokkit.server")
        logger.logLevel = level
        let deployment: JanusDeployment
        do {
            deployment = try settings.resolveJanus(
                mode: mode, external: external, mediaAddress: janusInterface, executable: janusExecutable)
        } catch {
            throw ValidationError(error.description)
        }
        switch deployment {
        case .external(let urls): logger.info("routed sessions use the Janus at \(urls.joined(separator: ", "))")
        case .embedded: logger.info("routed sessions use an embedded Janus")
        case .none(let reason) where mode == .auto:
            logger.warning("no Janus: routed sessions are relayed (\(reason))")
        case .none: break
        }

        DescriptorLimit.ensure(for: settings.maxConnections, logger: logger)
        let server: TokKitServer
        do {
            server = try TokKitServer(configuration: settings, logger: logger, archiveRecorder: ServerArchiveRecorder())
        } catch {
            throw ValidationError(error.description)
        }
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        let port: Int
        do {
            port = try await server.start()
        } catch {
            throw ValidationError(error.description)
        }
        print("tokkit-server listening on http://\(settings.host):\(port) (signaling ws://\(settings.host):\(port)\(TokKitServer.signalingPath))")
        fflush(nil)  // all streams: the port line must reach a pipe now
        for await signal in signals {
            logger.info("shutting down", metadata: ["signal": "\(signal)"])
            break
        }
        await server.stop()
    }
}
