/// The machine's usable local addresses, as ICE gathers on them (libnice's discovery: interfaces that are up,
/// IPv4 and non-link-local IPv6, no `::1`). For noticing a network change: an address that went away takes the
/// candidates and sockets bound to it along.
public enum LocalAddresses {
    /// The addresses now, without loopback. Cheap (one `getifaddrs`); any thread.
    public static func current() -> Set<String> {
        Set(AgentPlan.usableAddresses(includingLoopback: false))
    }
}
