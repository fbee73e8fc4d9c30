#if canImport(Glibc)
import Glibc
#endif

/// Turns a host name into the numeric address libnice needs (it takes no names). Blocking for a name: the
/// agent calls it only for names nobody resolved ahead (``ICEHostResolver``); numeric hosts return at once.
enum HostResolver {
    /// Whether `host` is an IPv4 or IPv6 address already (no lookup needed).
    static func isNumeric(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// The first IPv4 address of `host` (IPv6 if it has none); numeric hosts come back unchanged, without a
    /// lookup.
    static func numericAddress(_ host: String) throws(ICEError) -> String {
        if isNumeric(host) { return host }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let list else { throw .unresolvableHost(host) }
        defer { freeaddrinfo(list) }
        var best: String?
        var node: UnsafeMutablePointer<addrinfo>? = list
        while let n = node {
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(n.pointee.ai_addr, n.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0,
                           NI_NUMERICHOST) == 0 {
                let s = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if n.pointee.ai_family == AF_INET { return s }
                if best == nil { best = s }
            }
            node = n.pointee.ai_next
        }
        guard let best else { throw .unresolvableHost(host) }
        return best
    }
}
