import Dispatch
#if canImport(Glibc)
import Glibc
#endif

extension ICEServer {
    /// The host names its URLs name, numeric addresses left out (they need no resolving). Malformed URLs are
    /// skipped here; the agent reports them when it is made.
    public var hostNames: Set<String> {
        Set(urls.compactMap { try? ICEServerURL(parsing: $0) }.map(\.host).filter { !HostResolver.isNumeric($0) })
    }

    /// A copy whose URLs name `addresses[host]` in place of each host name found in `addresses`; every other URL
    /// is kept as it was. With numeric addresses only, an ``ICEAgent`` is made without a DNS lookup.
    public func replacingHostNames(_ addresses: [String: String]) -> ICEServer {
        substituting(addresses)
    }

    /// ``replacingHostNames(_:)``, leaving out the URLs whose host is in `unresolvable` (names known not to
    /// resolve, so that no agent blocks looking them up again); `nil` when no URL is left.
    public func replacingHostNames(_ addresses: [String: String], removing unresolvable: Set<String>) -> ICEServer? {
        let kept = unresolvable.isEmpty ? urls : urls.filter { text in
            guard let url = try? ICEServerURL(parsing: text) else { return true }
            return !unresolvable.contains(url.host)
        }
        guard !kept.isEmpty else { return nil }
        return ICEServer(urls: kept, username: username, credential: credential).substituting(addresses)
    }

    private func substituting(_ addresses: [String: String]) -> ICEServer {
        var copy = self
        copy.urls = urls.map { text in
            guard let url = try? ICEServerURL(parsing: text), let address = addresses[url.host] else { return text }
            return url.text(host: address)
        }
        return copy
    }
}

/// Resolves ICE server host names ahead of agent creation, off the caller's thread.
///
/// libnice takes numeric addresses only, and `getaddrinfo` blocks for as long as the resolver waits (seconds when
/// a DNS server is slow or gone). Resolve with ``numericAddress(of:)`` on the control plane before a connection
/// needs its agent (a `Session` does it when it connects), then hand the agent numeric URLs
/// (``ICEServer/replacingHostNames(_:)``).
public enum ICEHostResolver {
    private static let queue = DispatchQueue(label: "tk-ice-dns", qos: .utility, attributes: .concurrent)

    /// The first IPv4 address of `host` (IPv6 if it has none); a numeric host comes back unchanged at once.
    /// The lookup runs on a resolver queue, never on the caller's thread or Swift's cooperative pool.
    ///
    /// - Throws: ``ICEError/unresolvableHost(_:)`` when the name does not resolve.
    public static func numericAddress(of host: String) async throws(ICEError) -> String {
        if HostResolver.isNumeric(host) { return host }
        let result = await withCheckedContinuation { (done: CheckedContinuation<Result<String, ICEError>, Never>) in
            queue.async {
                done.resume(returning: Result { () throws(ICEError) -> String in try HostResolver.numericAddress(host) })
            }
        }
        return try result.get()
    }
}

extension ICEServerURL {
    /// The URL in canonical form, naming `host`.
    func text(host: String) -> String {
        let h = host.contains(":") ? "[\(host)]" : host
        switch kind {
        case .stun: return "stun:\(h):\(port)"
        case .turnUDP: return "turn:\(h):\(port)?transport=udp"
        case .turnTCP: return "turn:\(h):\(port)?transport=tcp"
        case .turnTLS: return "turns:\(h):\(port)?transport=tcp"
        }
    }
}
