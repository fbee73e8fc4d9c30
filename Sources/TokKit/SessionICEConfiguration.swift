/// Which STUN and TURN servers a session's media connections use, and which candidates they may use (the
/// SDK's `OTSessionICEConfig`).
///
/// By default a media connection uses the servers the session server lists in `connected` (with time-limited
/// TURN credentials) and any ``customServers``. A plain value, safe on any thread.
public struct SessionICEConfiguration: Sendable, Hashable {
    /// Which servers media connections use (the SDK's `includeServers`).
    public enum ServerSelection: Sendable, Hashable {
        /// The session server's, then ``SessionICEConfiguration/customServers``.
        case all
        /// Only ``SessionICEConfiguration/customServers``.
        case custom
    }

    /// Servers of the application's own, used besides (or, with ``ServerSelection/custom``, instead of) the
    /// session server's.
    public var customServers: [ICEServer]
    /// Whether the session server's servers are used.
    public var includeServers: ServerSelection
    /// `ICETransportPolicy.relay` sends media through TURN only, even where a direct path exists (it hides
    /// this host's addresses from the other side); a subscription then fails when no TURN server is known.
    public var transportPolicy: ICETransportPolicy

    /// A configuration with the given servers, selection and policy; by default the session server's servers only,
    /// any candidate.
    public init(customServers: [ICEServer] = [], includeServers: ServerSelection = .all,
                transportPolicy: ICETransportPolicy = .all) {
        self.customServers = customServers
        self.includeServers = includeServers
        self.transportPolicy = transportPolicy
    }

    /// Adds a server of the application's own (the SDK's `addICEServerWithURL:userName:credential:`).
    /// Throws ``SessionError/invalidParameter(_:cause:)`` unless `url` is a `stun:`, `turn:` or `turns:` URL.
    public mutating func addServer(url: String, username: String = "", credential: String = "") throws(SessionError) {
        let scheme = url.prefix { $0 != ":" }.lowercased()
        guard ["stun", "turn", "turns"].contains(scheme), url.count > scheme.count + 1 else {
            throw .invalidParameter("\(url) is not a stun:, turn: or turns: URL")
        }
        customServers.append(ICEServer(urls: [url], username: username, credential: credential))
    }
}
