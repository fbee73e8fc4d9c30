#if canImport(Glibc)
import Glibc
#endif
import Logging

/// The process's limit on open descriptors against ``TokKitServer/ServerConfiguration/maxConnections``: the
/// connection cap only protects the server if the process can hold that many sockets, and the soft limit is often
/// 1 024 (or the 256 of the probe). At startup the soft limit is raised to what the cap needs plus 64 (the
/// listener, files, logs), up to the hard limit; below that a warning says so.
enum DescriptorLimit {
    /// Descriptors beyond the connections.
    static let spare = 64

    /// Raises the soft limit if needed; returns it.
    @discardableResult
    static func ensure(for connections: Int, logger: Logger) -> Int {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 0 }
        let needed = rlim_t(connections + spare)
        if limit.rlim_cur < needed {
            var raised = limit
            raised.rlim_cur = min(needed, limit.rlim_max)
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        if limit.rlim_cur < needed {
            logger.warning(
                "the descriptor limit is below maxConnections: the connection cap cannot protect the server",
                metadata: ["limit": "\(limit.rlim_cur)", "needed": "\(needed)"])
        }
        return Int(clamping: limit.rlim_cur)
    }
}
