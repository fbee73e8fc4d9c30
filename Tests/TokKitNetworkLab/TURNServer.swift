import Foundation

/// coturn (`turnserver`, Debian package `coturn`) running in a lab host as the lab's STUN and TURN server: UDP and
/// TCP on 3478, TLS on 5349 with a throwaway self-signed certificate, TURN REST API credentials
/// (`use-auth-secret` with ``secret``: the scheme `tokkit-server --turn-secret` mints).
///
/// The ``NetworkLab`` stops it when it closes; the certificate directory is removed by ``stop()``/deinit.
public final class TURNServer: Sendable {
    public static let executable = "/usr/bin/turnserver"
    static let openssl = "/usr/bin/openssl"

    /// The host it runs in.
    public let host: LabHost
    /// The shared secret of its TURN REST API credentials.
    public let secret: String
    /// Its realm.
    public let realm = "tokkit.lab"
    /// The coturn process (its log is on stdout).
    public let process: LabProcess
    private let directory: URL

    /// `stun:ADDRESS:3478`.
    public var stunURL: String { "stun:\(host.address):3478" }
    /// `turn:ADDRESS:3478?transport=udp`.
    public var udpURL: String { "turn:\(host.address):3478?transport=udp" }
    /// `turn:ADDRESS:3478?transport=tcp`.
    public var tcpURL: String { "turn:\(host.address):3478?transport=tcp" }
    /// `turns:ADDRESS:5349?transport=tcp` (TLS).
    public var tlsURL: String { "turns:\(host.address):5349?transport=tcp" }
    /// Every URL above: what a session server hands out.
    public var urls: [String] { [stunURL, udpURL, tcpURL, tlsURL] }

    private init(host: LabHost, secret: String, process: LabProcess, directory: URL) {
        self.host = host
        self.secret = secret
        self.process = process
        self.directory = directory
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Makes a certificate, starts coturn on `host`'s address and waits (at most 15 s) until it serves.
    public static func start(in lab: NetworkLab, on host: LabHost, secret: String = "tokkit-lab-turn-secret")
        async throws(LabError) -> TURNServer {
        for tool in [executable, openssl] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw .toolMissing(tool)
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tokkit-turn-\(UUID())")
        do { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
            throw .launchFailed("cannot create \(directory.path): \(error)")
        }
        let cert = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        do {
            try await Command.run([openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                   "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=turn.tokkit.lab"])
            let process = try lab.spawn(on: host, [
                executable, "-n", "--listening-ip=\(host.address)", "--relay-ip=\(host.address)",
                "--listening-port=3478", "--tls-listening-port=5349", "--cert=\(cert)", "--pkey=\(key)",
                "--use-auth-secret", "--static-auth-secret=\(secret)", "--realm=tokkit.lab", "--fingerprint",
                "--no-cli", "--no-dtls", "--log-file=stdout", "--simple-log", "--verbose",
                "--pidfile=\(directory.appendingPathComponent("turnserver.pid").path)",
            ])
            let server = TURNServer(host: host, secret: secret, process: process, directory: directory)
            _ = try await process.waitForLine(timeout: .seconds(15), "coturn ready") {
                $0.contains("Total General servers")
            }
            return server
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// The port a client reached coturn on (3478: UDP or TCP; 5349: TLS) for the allocation whose relayed transport
    /// address is `relay` ("198.18.2.2:60143", the local end of a relayed candidate pair), read from coturn's
    /// verbose log: the allocation's session is named right after its relay address, and the session's closing line
    /// names its listener. Waits (at most `timeout`) for that closing line, written once the client has left.
    /// Only the log from line `since` on is read (``logLines`` before the allocation was made): coturn may give a
    /// later allocation the relay port of one that has closed. `client`: the allocating host's address (see below).
    public func listenerPort(ofAllocation relay: String, client: String? = nil, since: Int = 0,
                             timeout: Duration = .seconds(10)) async -> Int? {
        let deadline = ContinuousClock.now + timeout
        while true {
            var seen = since
            if let port = Self.listenerPort(ofAllocation: relay, client: client, in: process.lines(after: &seen)) {
                return port
            }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Lines coturn has logged so far (for ``listenerPort(ofAllocation:client:since:timeout:)``).
    public var logLines: Int { process.linesWritten }

    /// The allocation's session is the next one created after its relay address was logged, or, when allocations
    /// were made at once on coturn's other threads, the next one whose closing line names `client` (an address) as
    /// its remote end. Nil until that session has closed. Two allocations of the same client logged interleaved
    /// (libnice allocates on every TURN URL given) would not be told apart; in the logs seen, each relay address is
    /// followed by its own session's line.
    static func listenerPort(ofAllocation relay: String, client: String? = nil, in log: [String]) -> Int? {
        guard let at = log.firstIndex(where: { $0.hasSuffix("Local relay addr: \(relay)") }) else { return nil }
        for created in log[(at + 1)...] where created.contains(": new, realm=") {
            guard let sessionRange = created.range(of: "session "),
                  let colon = created[sessionRange.upperBound...].firstIndex(of: ":")
            else { continue }
            let session = "session " + created[sessionRange.upperBound..<colon] + ":"
            // "closed (2nd stage), …, local <listener>, remote <client>, reason: …" (a TCP session logs "TCP socket
            // closed remotely" first).
            guard let closed = log.first(where: { $0.contains(session) && $0.contains("closed (2nd stage)") })
            else { return nil }
            if let client, field(", remote ", in: closed)?.hasPrefix(client + ":") != true { continue }
            return field(", local ", in: closed)?.split(separator: ":").last.flatMap { Int($0) }
        }
        return nil
    }

    /// The text after `name` in `line`, up to the next comma.
    private static func field(_ name: String, in line: String) -> Substring? {
        line.range(of: name).map { line[$0.upperBound...].prefix { $0 != "," } }
    }
}
