/// A STUN or TURN server, as in the SDK's custom ICE configuration (`RTCIceServer`).
///
/// URLs follow RFC 7064/7065: `stun:host[:port]`, `turn:host[:port][?transport=udp|tcp]`,
/// `turns:host[:port]` (TURN over TLS). Resolve host names ahead with ``ICEHostResolver`` (a `Session` does);
/// a name left in is resolved, blocking, when the agent is created.
/// Value type, usable from any thread.
public struct ICEServer: Sendable, Hashable {
    /// One or more URLs for the same server.
    public var urls: [String]
    /// TURN username (unused for STUN).
    public var username: String
    /// TURN password (unused for STUN).
    public var credential: String

    /// Describes a server.
    public init(urls: [String], username: String = "", credential: String = "") {
        self.urls = urls
        self.username = username
        self.credential = credential
    }
}

/// One parsed ICE server URL.
struct ICEServerURL: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case stun
        case turnUDP
        case turnTCP
        case turnTLS
    }

    let kind: Kind
    let host: String
    let port: UInt16

    /// Parses `url` per RFC 7064/7065. `stuns:` is refused: libnice has no STUN-over-TLS.
    init(parsing url: String) throws(ICEError) {
        guard let colon = url.firstIndex(of: ":") else { throw .invalidServerURL(url) }
        let scheme = url[..<colon].lowercased()
        var rest = Substring(url[url.index(after: colon)...])
        var transport: Substring?
        if let q = rest.firstIndex(of: "?") {
            let query = rest[rest.index(after: q)...]
            rest = rest[..<q]
            guard query.hasPrefix("transport=") else { throw .invalidServerURL(url) }
            transport = query.dropFirst("transport=".count)
        }
        let host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw .invalidServerURL(url) }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalidServerURL(url) }
                portText = after.dropFirst()
            }
        } else if let c = rest.lastIndex(of: ":") {
            host = rest[..<c]
            portText = rest[rest.index(after: c)...]
        } else {
            host = rest
        }
        guard !host.isEmpty, !host.contains("/"), !host.contains("@") else { throw .invalidServerURL(url) }
        switch (scheme, transport?.lowercased()) {
        case ("stun", nil): kind = .stun
        case ("turn", nil), ("turn", "udp"): kind = .turnUDP
        case ("turn", "tcp"): kind = .turnTCP
        case ("turns", nil), ("turns", "tcp"): kind = .turnTLS
        default: throw .invalidServerURL(url)
        }
        if let portText {
            guard let p = UInt16(portText), p != 0 else { throw .invalidServerURL(url) }
            port = p
        } else {
            port = kind == .turnTLS ? 5349 : 3478
        }
        self.host = String(host)
    }
}
