/// An ICE candidate as SDP writes it: the value of `a=candidate:` (RFC 8839 §5.1) or of a trickled candidate string.
///
/// ```
/// candidate:<foundation> <component-id> <transport> <priority> <connection-address> <port> typ <cand-type>
///           [raddr <rel-addr>] [rport <rel-port>] *(<extension-att-name> <extension-att-value>)
/// ```
/// Extensions browsers add (`generation`, `ufrag`, `network-id`, `network-cost`, `tcptype`) are kept in order.
public struct SDPCandidate: Hashable, Sendable, CustomStringConvertible {
    /// Candidate types (RFC 8445 §5.1.1).
    public enum Kind: Hashable, Sendable {
        case host, serverReflexive, peerReflexive, relayed
        case other(String)

        init(_ token: Substring) {
            switch token {
            case "host": self = .host
            case "srflx": self = .serverReflexive
            case "prflx": self = .peerReflexive
            case "relay": self = .relayed
            default: self = .other(String(token))
            }
        }

        var token: String {
            switch self {
            case .host: "host"
            case .serverReflexive: "srflx"
            case .peerReflexive: "prflx"
            case .relayed: "relay"
            case let .other(token): token
            }
        }
    }

    /// An `<extension-att-name> <extension-att-value>` pair.
    public struct Extension: Hashable, Sendable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// 1-32 `ice-char`s (ALPHA / DIGIT / "+" / "/").
    public var foundation: String
    /// 1 for RTP (the only component with rtcp-mux), 1-256.
    public var component: Int
    /// `UDP` or a transport extension such as `TCP`; compared case-insensitively.
    public var transport: String
    public var priority: UInt32
    /// IPv4, IPv6 or an FQDN (mDNS `.local` names).
    public var address: String
    public var port: UInt16
    public var kind: Kind
    public var relatedAddress: String?
    public var relatedPort: UInt16?
    public var extensions: [Extension]

    public init(foundation: String, component: Int = 1, transport: String = "udp", priority: UInt32, address: String,
                port: UInt16, kind: Kind = .host, relatedAddress: String? = nil, relatedPort: UInt16? = nil,
                extensions: [Extension] = []) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.kind = kind
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.extensions = extensions
    }

    /// The value of extension `name`, if present (e.g. `tcptype`, `generation`).
    public func extensionValue(_ name: String) -> String? { extensions.first { $0.name == name }?.value }

    /// Parses a candidate with or without the `a=` and `candidate:` prefixes. Longer than 1 KiB is rejected.
    public init(parsing text: String) throws(SDPError) {
        guard text.utf8.count <= 1024 else { throw .invalidCandidate("longer than 1024 bytes") }
        var value = Substring(text)
        if value.hasPrefix("a=") { value = value.dropFirst(2) }
        if value.hasPrefix("candidate:") { value = value.dropFirst("candidate:".count) }
        let f = value.fields
        guard f.count >= 8 else { throw .invalidCandidate("needs at least 8 fields, has \(f.count)") }
        guard (1 ... 32).contains(f[0].utf8.count),
              f[0].utf8.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/") })
        else { throw .invalidCandidate("foundation '\(f[0].prefix(40))'") }
        guard f[1].utf8.count <= 3, let component = Int(f[1]), (1 ... 256).contains(component) else {
            throw .invalidCandidate("component id '\(f[1].prefix(40))'")
        }
        guard isToken(f[2]) else { throw .invalidCandidate("transport '\(f[2].prefix(40))'") }
        guard f[3].utf8.count <= 10, let priority = UInt32(f[3]) else {
            throw .invalidCandidate("priority '\(f[3].prefix(40))'")
        }
        guard isAddress(f[4]) else { throw .invalidCandidate("address '\(f[4].prefix(40))'") }
        guard let port = UInt16(f[5]) else { throw .invalidCandidate("port '\(f[5].prefix(40))'") }
        guard f[6] == "typ", isToken(f[7]) else { throw .invalidCandidate("missing 'typ <type>'") }
        self.init(foundation: String(f[0]), component: component, transport: String(f[2]), priority: priority,
                  address: String(f[4]), port: port, kind: Kind(f[7]))
        var i = 8
        while i < f.count {
            guard i + 1 < f.count else { throw .invalidCandidate("extension '\(f[i].prefix(40))' has no value") }
            let name = f[i], value = f[i + 1]
            switch name {
            case "raddr" where relatedAddress == nil && extensions.isEmpty:
                guard isAddress(value) else { throw .invalidCandidate("raddr '\(value.prefix(40))'") }
                relatedAddress = String(value)
            case "rport" where relatedPort == nil && extensions.isEmpty:
                guard let p = UInt16(value) else { throw .invalidCandidate("rport '\(value.prefix(40))'") }
                relatedPort = p
            default:
                guard isToken(name), isVisible(value) else {
                    throw .invalidCandidate("extension '\(name.prefix(40))'")
                }
                extensions.append(Extension(String(name), String(value)))
            }
            i += 2
        }
    }

    /// The attribute value without `a=`, starting with `candidate:`.
    public var description: String {
        var s = "candidate:\(foundation) \(component) \(transport) \(priority) \(address) \(port) typ \(kind.token)"
        if let relatedAddress { s += " raddr \(relatedAddress)" }
        if let relatedPort { s += " rport \(relatedPort)" }
        for e in extensions { s += " \(e.name) \(e.value)" }
        return s
    }

    /// The value after `candidate:`, as an `a=candidate:` line carries it.
    var sdp: String { String(description.dropFirst("candidate:".count)) }
}

private func isAlphanumeric(_ c: UInt8) -> Bool {
    (UInt8(ascii: "a") ... UInt8(ascii: "z")).contains(c) || (UInt8(ascii: "A") ... UInt8(ascii: "Z")).contains(c)
        || (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(c)
}

/// IPv4, IPv6 (hex digits, colons, dots, a zone after %) or a host name: letters, digits, '.', '-', ':', '%', '_'.
private func isAddress(_ s: Substring) -> Bool {
    (1 ... 255).contains(s.utf8.count) && s.utf8.allSatisfy {
        isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ":")
            || $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "_")
    }
}
