#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokKitProtocol

/// Everything a ``TokKitServer`` needs: where to listen, the project's credentials and the protocol timings.
///
/// Value type, `Sendable`. Decodable from the JSON config file (every field optional there; absent fields keep
/// the defaults below). Durations are milliseconds, as on the wire.
public struct ServerConfiguration: Sendable, Hashable, Codable {
    /// Address to bind; tests and embedding programs use 127.0.0.1.
    public var host: String = "127.0.0.1"
    /// Port to bind; 0 picks an ephemeral port (``TokKitServer/start()`` returns it).
    public var port: Int = 0
    /// The project's API key: tokens must name it, clients send it with `connect`.
    public var apiKey: String = ""
    /// The project's secret: signs tokens (HS256) and authenticates REST calls; keep it on the server.
    public var apiSecret: String = ""
    /// How often clients should ping (sent to them in `connected`).
    public var heartbeatIntervalMs: Int = 5_000
    /// A socket silent this long is closed and its connection awaits resume.
    public var heartbeatTimeoutMs: Int = 15_000
    /// How long a lost connection can be resumed before it is destroyed for everyone.
    public var resumeGraceMs: Int = 20_000
    /// How long a new socket may take to send `connect` or `resume`.
    public var connectTimeoutMs: Int = 10_000
    /// How long the server waits for a client's close frame after sending its own.
    public var closeTimeoutMs: Int = 2_000
    /// Outgoing messages queued per socket before the client counts as lost (closed 1008 "outbox full").
    public var outboxCapacity: Int = 1_024
    /// Outgoing bytes queued per socket before the client counts as lost (closed 1008 "outbox full"); one message
    /// alone may be larger.
    public var outboxMaxBytes: Int = 1_048_576
    /// Most connections in one session (connected or awaiting resume); one more `connect` is refused with 1430.
    public var maxConnectionsPerSession: Int = 1_000
    /// Most sessions the server holds; creating one more (REST or quick start) is refused with 503 / 1430.
    public var maxSessions: Int = 10_000
    /// A session without connections for this long is forgotten (its id then gets 1005).
    public var emptySessionTimeoutMs: Int = 3_600_000
    /// A recording stops by itself once its session has had no client but the recorder for this long (OpenTok's
    /// 60 s; Docs/Protocol.md 5.7). The recorder never counts as a member for this or for ``emptySessionTimeoutMs``.
    public var archiveIdleStopMs: Int = 60_000
    /// How long a connection may take to send a complete request head (a REST call or the WebSocket handshake),
    /// counted from its opening or from the server's answer to its previous request; then it is closed. This closes
    /// silent and slowloris connections and idle keep-alive ones. Each deadline (this one and
    /// ``requestBodyTimeoutMs``) is drawn between the value and 1.25 times it, so that connections opened together
    /// are not all closed, and reopened, in the same instant.
    public var requestHeadTimeoutMs: Int = 10_000
    /// How long a request's body may take to arrive after its head; then the connection is closed.
    public var requestBodyTimeoutMs: Int = 10_000
    /// Largest request head in bytes: the request line and each header field, and all header fields together. A
    /// larger head is answered 400 and the connection closed.
    public var maxHeaderBytes: Int = 16_384
    /// Most header fields in one request (more: 400 and closed).
    public var maxHeaderCount: Int = 100
    /// Most connections open at once, HTTP and WebSocket; one more is answered 503 (error 1430) and closed. Keep it
    /// below the process's descriptor limit (`ulimit -n`): `tokkit-server` raises its soft limit to this plus 64 where
    /// the hard limit allows, and warns otherwise.
    public var maxConnections: Int = 4_096
    /// Most connections open at once from one peer address; one more is answered 503 (error 1430) and closed.
    public var maxConnectionsPerAddress: Int = 256
    /// Serve the tutorial web service (`GET /session`, `GET /room/{name}`) and the browser page's development route
    /// (`GET /credentials/{id}`, for sessions created that way) without credentials. On for an embedded server (the
    /// examples and the demo, on 127.0.0.1); `tokkit-server` turns it off unless `--quick-start` or the config file
    /// says otherwise.
    public var quickStart: Bool = true
    /// Quick-start calls per second each peer address may make, sustained (token bucket refill).
    public var quickStartRate: Double = 1
    /// Quick-start calls each peer address may make at once (token bucket size); more are 429 / 1430.
    public var quickStartBurst: Int = 10
    /// Directory of static files served at `/` (the browser client), or nil for none.
    public var staticDirectory: String? = nil
    /// Directory of the archives (issue 16): their records (`archives.sqlite`) and one directory of files per
    /// archive; created if missing. Nil: no archiving (the archive calls answer 501 / 1620).
    public var archiveDirectory: String? = nil
    /// STUN and TURN servers handed to every client in `connected`, for its media connections. A TURN entry
    /// without `username` gets time-limited credentials made with ``turnSecret`` (the TURN REST API scheme of
    /// coturn's `use-auth-secret`); one with `username` and `credential` goes as it is.
    public var iceServers: [ICEServerInfo] = []
    /// The secret shared with the TURN server (coturn's `static-auth-secret`), or nil.
    public var turnSecret: String? = nil
    /// How long TURN credentials stay valid, in seconds (a client resuming gets fresh ones).
    public var turnCredentialLifetime: Int = 86_400

    /// The Janus instances that carry routed sessions' media (Docs/Routing.md): each routed session is placed on
    /// the least loaded reachable one and moves to another if its instance is lost. Empty: routed sessions behave
    /// like relayed ones. In the JSON config file, `"janus"` is one instance's object or an array of them.
    public var janus: [RoutedMediaConfiguration] = []
    /// A Janus the server starts, supervises and stops itself for its routed sessions (Docs/Routing.md, "The
    /// embedded Janus"), or nil. Not together with ``janus``.
    public var embeddedJanus: EmbeddedJanusSettings? = nil

    /// The defaults of an embedded server: 127.0.0.1, an ephemeral port, no credentials, quick start on.
    public init() {}

    /// The defaults of a standalone server (`tokkit-server`): as ``init()``, but quick start off (it must be asked
    /// for, with `--quick-start` or `"quickStart": true`).
    public static var standalone: ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.quickStart = false
        return configuration
    }

    /// The defaults with the project's credentials and where to listen (port 0 picks an ephemeral port).
    public init(apiKey: String, apiSecret: String, host: String = "127.0.0.1", port: Int = 0) {
        self.apiKey = apiKey
        self.apiSecret = apiSecret
        self.host = host
        self.port = port
    }

    /// The `userInfo` key of the configuration whose values absent fields keep (default: ``init()``'s).
    public static let defaultsKey = CodingUserInfoKey(rawValue: "TokKitServer.ServerConfiguration.defaults")!

    /// Reads a JSON configuration file: every field is optional and absent ones keep the values of the configuration
    /// in the decoder's `userInfo[defaultsKey]` (``init()``'s when there is none). Durations are milliseconds.
    /// - Throws: `DecodingError` for a field of the wrong type.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        var d = decoder.userInfo[Self.defaultsKey] as? ServerConfiguration ?? ServerConfiguration()
        d.host = try c.decodeIfPresent(String.self, forKey: .host) ?? d.host
        d.port = try c.decodeIfPresent(Int.self, forKey: .port) ?? d.port
        d.apiKey = try c.decodeIfPresent(String.self, forKey: .apiKey) ?? d.apiKey
        d.apiSecret = try c.decodeIfPresent(String.self, forKey: .apiSecret) ?? d.apiSecret
        d.heartbeatIntervalMs = try c.decodeIfPresent(Int.self, forKey: .heartbeatIntervalMs) ?? d.heartbeatIntervalMs
        d.heartbeatTimeoutMs = try c.decodeIfPresent(Int.self, forKey: .heartbeatTimeoutMs) ?? d.heartbeatTimeoutMs
        d.resumeGraceMs = try c.decodeIfPresent(Int.self, forKey: .resumeGraceMs) ?? d.resumeGraceMs
        d.connectTimeoutMs = try c.decodeIfPresent(Int.self, forKey: .connectTimeoutMs) ?? d.connectTimeoutMs
        d.closeTimeoutMs = try c.decodeIfPresent(Int.self, forKey: .closeTimeoutMs) ?? d.closeTimeoutMs
        d.outboxCapacity = try c.decodeIfPresent(Int.self, forKey: .outboxCapacity) ?? d.outboxCapacity
        d.outboxMaxBytes = try c.decodeIfPresent(Int.self, forKey: .outboxMaxBytes) ?? d.outboxMaxBytes
        d.maxSessions = try c.decodeIfPresent(Int.self, forKey: .maxSessions) ?? d.maxSessions
        d.maxConnectionsPerSession =
            try c.decodeIfPresent(Int.self, forKey: .maxConnectionsPerSession) ?? d.maxConnectionsPerSession
        d.emptySessionTimeoutMs =
            try c.decodeIfPresent(Int.self, forKey: .emptySessionTimeoutMs) ?? d.emptySessionTimeoutMs
        d.archiveIdleStopMs = try c.decodeIfPresent(Int.self, forKey: .archiveIdleStopMs) ?? d.archiveIdleStopMs
        d.requestHeadTimeoutMs =
            try c.decodeIfPresent(Int.self, forKey: .requestHeadTimeoutMs) ?? d.requestHeadTimeoutMs
        d.requestBodyTimeoutMs =
            try c.decodeIfPresent(Int.self, forKey: .requestBodyTimeoutMs) ?? d.requestBodyTimeoutMs
        d.maxHeaderBytes = try c.decodeIfPresent(Int.self, forKey: .maxHeaderBytes) ?? d.maxHeaderBytes
        d.maxHeaderCount = try c.decodeIfPresent(Int.self, forKey: .maxHeaderCount) ?? d.maxHeaderCount
        d.maxConnections = try c.decodeIfPresent(Int.self, forKey: .maxConnections) ?? d.maxConnections
        d.maxConnectionsPerAddress =
            try c.decodeIfPresent(Int.self, forKey: .maxConnectionsPerAddress) ?? d.maxConnectionsPerAddress
        d.quickStart = try c.decodeIfPresent(Bool.self, forKey: .quickStart) ?? d.quickStart
        d.quickStartRate = try c.decodeIfPresent(Double.self, forKey: .quickStartRate) ?? d.quickStartRate
        d.quickStartBurst = try c.decodeIfPresent(Int.self, forKey: .quickStartBurst) ?? d.quickStartBurst
        d.staticDirectory = try c.decodeIfPresent(String.self, forKey: .staticDirectory) ?? d.staticDirectory
        d.archiveDirectory = try c.decodeIfPresent(String.self, forKey: .archiveDirectory) ?? d.archiveDirectory
        d.iceServers = try c.decodeIfPresent([ICEServerInfo].self, forKey: .iceServers) ?? d.iceServers
        d.turnSecret = try c.decodeIfPresent(String.self, forKey: .turnSecret) ?? d.turnSecret
        d.turnCredentialLifetime =
            try c.decodeIfPresent(Int.self, forKey: .turnCredentialLifetime) ?? d.turnCredentialLifetime
        d.janus = try RoutedMediaConfiguration.decodeList(from: c, forKey: .janus) ?? d.janus
        d.embeddedJanus = try c.decodeIfPresent(EmbeddedJanusSettings.self, forKey: .embeddedJanus) ?? d.embeddedJanus
        self = d
    }

    /// Reads a JSON config file; the fields it does not name keep their values in `defaults`.
    public static func load(path: String, defaults: ServerConfiguration = ServerConfiguration())
        throws(TokKitServerError) -> ServerConfiguration
    {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .configuration("cannot read \(path): \(error)")
        }
        do {
            let decoder = JSONDecoder()
            decoder.userInfo[defaultsKey] = defaults
            return try decoder.decode(ServerConfiguration.self, from: data)
        } catch {
            throw .configuration("\(path) is not a valid config file: \(error)")
        }
    }

    /// Checks every field; the server refuses to start with an invalid configuration.
    public func validate() throws(TokKitServerError) {
        guard !apiKey.isEmpty else { throw .configuration("apiKey is empty") }
        guard apiSecret.utf8.count >= 16 else { throw .configuration("apiSecret must be at least 16 bytes") }
        guard (0...65_535).contains(port) else { throw .configuration("port must be 0...65535") }
        guard !host.isEmpty else { throw .configuration("host is empty") }
        if let embeddedJanus {
            guard janus.isEmpty else { throw .configuration("set janus or embeddedJanus, not both") }
            try embeddedJanus.validate()
        }
        for (index, instance) in janus.enumerated() {
            let name = janus.count == 1 ? "janus" : "janus[\(index)]"
            guard instance.url.hasPrefix("ws://") || instance.url.hasPrefix("wss://") else {
                throw .configuration("\(name) url must be ws://HOST:PORT or wss://HOST:PORT")
            }
            guard (1...600_000).contains(instance.requestTimeoutMs) else {
                throw .configuration("\(name) requestTimeoutMs must be 1...600000")
            }
        }
        guard janus.count <= RoutedMediaConfiguration.maxInstances else {
            throw .configuration("at most \(RoutedMediaConfiguration.maxInstances) janus instances")
        }
        guard Set(janus.map(\.url)).count == janus.count else {
            throw .configuration("each janus instance may be named once")
        }
        for (name, value) in [
            ("heartbeatIntervalMs", heartbeatIntervalMs), ("heartbeatTimeoutMs", heartbeatTimeoutMs),
            ("connectTimeoutMs", connectTimeoutMs), ("closeTimeoutMs", closeTimeoutMs),
            ("requestHeadTimeoutMs", requestHeadTimeoutMs), ("requestBodyTimeoutMs", requestBodyTimeoutMs),
        ] where !(1...3_600_000).contains(value) {
            throw .configuration("\(name) must be 1...3600000")
        }
        guard (0...3_600_000).contains(resumeGraceMs) else { throw .configuration("resumeGraceMs must be 0...3600000") }
        guard heartbeatTimeoutMs > heartbeatIntervalMs else {
            throw .configuration("heartbeatTimeoutMs must exceed heartbeatIntervalMs")
        }
        guard (1...1_000_000).contains(outboxCapacity) else { throw .configuration("outboxCapacity must be 1...1000000") }
        guard (65_536...1_073_741_824).contains(outboxMaxBytes) else {
            throw .configuration("outboxMaxBytes must be 65536...1073741824")
        }
        guard quickStartRate >= 0.001, quickStartRate <= 1_000 else {
            throw .configuration("quickStartRate must be 0.001...1000")
        }
        guard (1...10_000).contains(quickStartBurst) else { throw .configuration("quickStartBurst must be 1...10000") }
        guard (1...10_000_000).contains(maxSessions) else { throw .configuration("maxSessions must be 1...10000000") }
        guard (1...100_000).contains(maxConnectionsPerSession) else {
            throw .configuration("maxConnectionsPerSession must be 1...100000")
        }
        guard (1...604_800_000).contains(emptySessionTimeoutMs) else {
            throw .configuration("emptySessionTimeoutMs must be 1...604800000")
        }
        guard (1...86_400_000).contains(archiveIdleStopMs) else {
            throw .configuration("archiveIdleStopMs must be 1...86400000")
        }
        guard (1_024...1_048_576).contains(maxHeaderBytes) else {
            throw .configuration("maxHeaderBytes must be 1024...1048576")
        }
        guard (8...10_000).contains(maxHeaderCount) else { throw .configuration("maxHeaderCount must be 8...10000") }
        guard (1...1_000_000).contains(maxConnections) else { throw .configuration("maxConnections must be 1...1000000") }
        guard (1...maxConnections).contains(maxConnectionsPerAddress) else {
            throw .configuration("maxConnectionsPerAddress must be 1...maxConnections")
        }
        try validateIceServers()
    }

    /// Each ICE server has URLs of a known scheme; a TURN server has static credentials or ``turnSecret`` is set.
    private func validateIceServers() throws(TokKitServerError) {
        guard (60...604_800).contains(turnCredentialLifetime) else {
            throw .configuration("turnCredentialLifetime must be 60...604800 seconds")
        }
        if let turnSecret, turnSecret.isEmpty { throw .configuration("turnSecret is empty") }
        for server in iceServers {
            guard !server.urls.isEmpty else { throw .configuration("an ICE server has no URL") }
            for url in server.urls {
                let scheme = url.prefix { $0 != ":" }.lowercased()
                guard ["stun", "stuns", "turn", "turns"].contains(scheme), url.count > scheme.count + 1,
                      url.utf8.count <= 512
                else { throw .configuration("ICE server URL \(url) is not stun:, stuns:, turn: or turns:") }
            }
            guard server.isTURN else { continue }
            guard (server.username == nil) == (server.credential == nil) else {
                throw .configuration("TURN server \(server.urls[0]) has a username without a credential or the reverse")
            }
            guard server.username != nil || turnSecret != nil else {
                throw .configuration("TURN server \(server.urls[0]) has no credentials and no turnSecret is set")
            }
        }
    }
}
