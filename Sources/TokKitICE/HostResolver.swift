#if canImport(Glibc)
import Glibc
#endif

/// Turns a host name into the numeric address libnice needs (it takes no names). Blocking: call only on
/// the control plane, at agent creation.
enum HostResolver {
    /// The first IPv4 address of `host` (IPv6 if it has none); numeric hosts come back unchanged.
    static func numericAddress(_ host: String) throws(ICEError) -> String {
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
