/// One host of a ``NetworkLab``: a network namespace with one interface (`eth0`) towards the lab's router,
/// directly or through a NAT gateway namespace of its own.
///
/// Host `n` of a lab owns 198.18.n.0/24: the router is 198.18.n.1 and the host (or its NAT gateway) 198.18.n.2
/// (198.18.n.3 and so on after address changes). A
/// host behind NAT lives in 198.19.n.0/24 (its gateway 198.19.n.1, the host 198.19.n.2), which the router has no
/// route to: only the gateway's masquerade address, 198.18.n.2, is seen by the rest of the lab.
public struct LabHost: Sendable, Hashable, CustomStringConvertible {
    /// The name the test gave it.
    public let label: String
    /// Its number in the lab (its subnet is 198.18.index.0/24).
    public let index: Int
    /// The network namespace (`ip netns exec <namespace> …`).
    public let namespace: String
    /// The NAT in front of it, if any.
    public let nat: NetworkLab.NAT?
    /// The last byte of its address: 2, one more after each ``NetworkLab/changeAddress(of:)``.
    public let hostNumber: Int
    /// Whether its link runs through a delay relay (``NetworkLab/setDelay(_:_:jitter:)``).
    public let delayable: Bool
    /// The host's own address (on `eth0`).
    public var address: String { nat == nil ? "198.18.\(index).\(hostNumber)" : "198.19.\(index).\(hostNumber)" }
    /// The address the rest of the lab sees it from: its own, or its NAT gateway's.
    public var publicAddress: String { nat == nil ? address : "198.18.\(index).2" }
    init(label: String, index: Int, namespace: String, nat: NetworkLab.NAT?, hostNumber: Int = 2,
         delayable: Bool = false) {
        self.label = label
        self.index = index
        self.namespace = namespace
        self.nat = nat
        self.hostNumber = hostNumber
        self.delayable = delayable
    }

    /// The router's end of the host's link (where impairments apply).
    var routerInterface: String { "h\(index)" }
    /// The namespace holding the other end of the link to the router: the host's, or its gateway's.
    var uplinkNamespace: String { nat == nil ? namespace : gatewayNamespace }
    /// The NAT gateway's namespace (only meaningful behind NAT).
    var gatewayNamespace: String { namespace + "g" }
    /// The delay relay's namespace (only meaningful when delayable).
    var relayNamespace: String { namespace + "d" }

    public var description: String {
        "\(label) (\(address)\(nat.map { " behind \($0) NAT as \(publicAddress)" } ?? ""))"
    }
}
