#if canImport(Glibc)
import Glibc
#endif

/// How a ``TokKitServer`` runs a Janus of its own for its routed sessions (Docs/Routing.md, "The embedded Janus"):
/// ``ServerConfiguration/embeddedJanus``.
///
/// The server starts Janus (`JanusProcess`) from a generated configuration (random `api_secret` and VideoRoom
/// `admin_key`, never printed) when it starts, uses it as its routed sessions' Janus, restarts it with backoff if
/// it dies, and stops it (removing its generated files) when it stops. Janus's API listens on 127.0.0.1 only.
///
/// Value type, `Sendable`; in the JSON config file as `"embeddedJanus": {…}` (every field optional).
public struct EmbeddedJanusSettings: Sendable, Hashable, Codable {
    /// The `janus` executable (Debian's `janus` package, which `scripts/bootstrap` installs).
    public var executable: String = "/usr/bin/janus"
    /// The IPv4 address Janus uses for ICE (its SDP and candidates), or nil: the machine's first non-loopback
    /// IPv4 address (``defaultMediaAddress()``). Janus gathers nothing on loopback interfaces, so this must be a
    /// real interface's address that the clients reach.
    public var mediaAddress: String? = nil
    /// The port of Janus's WebSocket API on 127.0.0.1; 0 picks a free one when the server is made (kept across
    /// restarts).
    public var port: Int = 0
    /// The UDP ports Janus may use for media, `[low, high]`, or nil: any.
    public var rtpPortRange: ClosedRange<Int>? = nil
    /// How long Janus may take to answer its first `info` before ``TokKitServer/start()`` gives up.
    public var startTimeoutMs: Int = 15_000
    /// Whether a Janus that dies is started again (with backoff). Off: routed sessions fail (1570) until the server
    /// restarts.
    public var restarts: Bool = true
    /// The first delay before a restart; each failed start doubles it, up to ``maxRestartBackoffMs``. A Janus that
    /// ran for a minute before dying starts again after this first delay.
    public var restartBackoffMs: Int = 250
    /// The longest delay between two restart attempts.
    public var maxRestartBackoffMs: Int = 30_000
    /// Janus's log level, 0-7 (its output is kept in memory, shown in errors and logged when it dies).
    public var debugLevel: Int = 4
    /// The folder with Janus's `plugins/` and `transports/`, or nil: the usual Debian paths.
    public var libraryFolder: String? = nil
    /// Janus's `session_timeout` in seconds.
    public var sessionTimeout: Int = 60

    /// The defaults above: `/usr/bin/janus`, the machine's first non-loopback address, a free port, restarts on.
    public init() {}

    /// Settings with Janus's media address (nil: ``defaultMediaAddress()``) and executable.
    public init(mediaAddress: String?, executable: String = "/usr/bin/janus") {
        self.mediaAddress = mediaAddress
        self.executable = executable
    }

    /// The IPv4 address of the machine's first interface (in `getifaddrs` order) that is up and not loopback, or
    /// nil when there is none (a namespace with only `lo`).
    public static func defaultMediaAddress() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        var node: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = node {
            defer { node = entry.pointee.ifa_next }
            let flags = Int32(bitPattern: entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                  flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0 else { continue }
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            // getnameinfo, not sockaddr_in.sin_addr: in a release build `sockaddr_in` may resolve to NIO's copy of
            // the C header (CNIOLinux), whose members this module does not import (MemberImportVisibility).
            guard getnameinfo(address, socklen_t(MemoryLayout<sockaddr_in>.size), &text, socklen_t(text.count), nil, 0,
                              NI_NUMERICHOST) == 0 else { continue }
            let string = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !string.hasPrefix("127.") { return string }
        }
        return nil
    }

    private enum CodingKeys: String, CodingKey {
        case executable, mediaAddress, port, rtpPortRange, startTimeoutMs, restarts, restartBackoffMs
        case maxRestartBackoffMs, debugLevel, libraryFolder, sessionTimeout
    }

    /// Reads the settings from the config file's `"embeddedJanus"` object; absent fields keep the defaults.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        var d = EmbeddedJanusSettings()
        d.executable = try c.decodeIfPresent(String.self, forKey: .executable) ?? d.executable
        d.mediaAddress = try c.decodeIfPresent(String.self, forKey: .mediaAddress) ?? d.mediaAddress
        d.port = try c.decodeIfPresent(Int.self, forKey: .port) ?? d.port
        d.rtpPortRange = try c.decodeIfPresent(ClosedRange<Int>.self, forKey: .rtpPortRange) ?? d.rtpPortRange
        d.startTimeoutMs = try c.decodeIfPresent(Int.self, forKey: .startTimeoutMs) ?? d.startTimeoutMs
        d.restarts = try c.decodeIfPresent(Bool.self, forKey: .restarts) ?? d.restarts
        d.restartBackoffMs = try c.decodeIfPresent(Int.self, forKey: .restartBackoffMs) ?? d.restartBackoffMs
        d.maxRestartBackoffMs = try c.decodeIfPresent(Int.self, forKey: .maxRestartBackoffMs) ?? d.maxRestartBackoffMs
        d.debugLevel = try c.decodeIfPresent(Int.self, forKey: .debugLevel) ?? d.debugLevel
        d.libraryFolder = try c.decodeIfPresent(String.self, forKey: .libraryFolder) ?? d.libraryFolder
        d.sessionTimeout = try c.decodeIfPresent(Int.self, forKey: .sessionTimeout) ?? d.sessionTimeout
        self = d
    }

    /// Throws ``TokKitServerError/configuration(_:)`` for values out of range.
    func validate() throws(TokKitServerError) {
        guard !executable.isEmpty else { throw .configuration("embeddedJanus.executable is empty") }
        guard (0...65_535).contains(port) else { throw .configuration("embeddedJanus.port must be 0...65535") }
        guard (1...600_000).contains(startTimeoutMs) else {
            throw .configuration("embeddedJanus.startTimeoutMs must be 1...600000")
        }
        guard (1...3_600_000).contains(restartBackoffMs), (restartBackoffMs...3_600_000).contains(maxRestartBackoffMs)
        else {
            throw .configuration("embeddedJanus.restartBackoffMs must be 1...maxRestartBackoffMs ≤ 3600000")
        }
        if let range = rtpPortRange, range.lowerBound < 1 || range.upperBound > 65_535 {
            throw .configuration("embeddedJanus.rtpPortRange must be within 1...65535")
        }
        guard (0...7).contains(debugLevel) else { throw .configuration("embeddedJanus.debugLevel must be 0...7") }
        // The server's Janus session is kept alive every 25 s (JanusSession): a shorter timeout would end it
        // during any quiet stretch and fail every routed stream on it.
        guard (60...86_400).contains(sessionTimeout) else {
            throw .configuration("embeddedJanus.sessionTimeout must be 60...86400 (the server's keepalive is every 25 s)")
        }
    }
}
