/// What is done to a lab host's traffic at the router, in both directions. ``NetworkLab/impair(_:_:)`` replaces a
/// host's whole set at once; `Impairments()` is a clean link.
///
/// Filtering and loss are nftables rules in the router's forward chain (so the host's own loopback is untouched);
/// the bandwidth cap is a `tc tbf` qdisc on both ends of the host's link.
public struct Impairments: Sendable, Hashable {
    /// Drop every UDP datagram (a firewall that only lets TCP through).
    public var blockUDP = false
    /// Drop TCP to and from these ports (e.g. 3478, to leave TURN only TLS on 5349).
    public var blockedTCPPorts: [Int] = []
    /// Drop this percentage (0–100) of packets at random (nftables `numgen random`).
    public var dropPercent = 0
    /// Cap each direction at this many kbit/s (`tc tbf`), or nil for no cap.
    public var bandwidthKbit: Int?
    /// Drop everything: the host is gone from the network (its processes keep running).
    public var offline = false

    public init(blockUDP: Bool = false, blockedTCPPorts: [Int] = [], dropPercent: Int = 0, bandwidthKbit: Int? = nil,
                offline: Bool = false) {
        self.blockUDP = blockUDP
        self.blockedTCPPorts = blockedTCPPorts
        self.dropPercent = dropPercent
        self.bandwidthKbit = bandwidthKbit
        self.offline = offline
    }

    /// The nftables rules of a host's chain (matched in both directions).
    var rules: [String] {
        var rules: [String] = []
        if offline { rules.append("drop") }
        if blockUDP { rules.append("meta l4proto udp drop") }
        for port in blockedTCPPorts where (1...65_535).contains(port) {
            rules.append("tcp dport \(port) drop")
            rules.append("tcp sport \(port) drop")
        }
        let percent = min(max(dropPercent, 0), 100)
        if percent > 0 { rules.append("numgen random mod 100 < \(percent) drop") }
        return rules
    }
}
