/// How an ``IceAgent`` gathers and checks candidates: the SDK's custom ICE configuration plus the host
/// addresses to use.
///
/// Value type, usable from any thread.
public struct IceConfiguration: Sendable, Hashable {
    /// STUN and TURN servers. libnice uses the first STUN URL and every TURN URL.
    public var servers: [IceServer]
    /// Which candidates may be used.
    public var transportPolicy: IceTransportPolicy
    /// Numeric addresses to gather host candidates on, and only those. With no addresses and no
    /// ``interfaces``, the agent gathers on every usable interface (see ``includesLoopback``).
    public var localAddresses: [String]
    /// Interface names (`eth0`) whose IPv4 address is added to ``localAddresses``.
    public var interfaces: [String]
    /// When gathering on every usable interface (no ``localAddresses``, no ``interfaces``), also gather on
    /// `127.0.0.1`, so that two peers on one machine connect even when it has no other interface. Browsers
    /// leave loopback out; two TokKit peers on different machines never pair with it (the check fails fast and
    /// another pair wins).
    public var includesLoopback: Bool
    /// Local ports to bind, or `nil` for any.
    public var portRange: ClosedRange<UInt16>?
    /// Local ufrag/pwd to use instead of random ones.
    public var localCredentials: IceCredentials?
    /// RFC 7675 consent freshness (on, as browsers do). Decided at agent creation.
    public var consentFreshness: Bool

    /// A configuration; the defaults gather on every usable interface and loopback, with no servers.
    public init(servers: [IceServer] = [], transportPolicy: IceTransportPolicy = .all,
                localAddresses: [String] = [], interfaces: [String] = [], includesLoopback: Bool = true,
                portRange: ClosedRange<UInt16>? = nil, localCredentials: IceCredentials? = nil,
                consentFreshness: Bool = true) {
        self.servers = servers
        self.transportPolicy = transportPolicy
        self.localAddresses = localAddresses
        self.interfaces = interfaces
        self.includesLoopback = includesLoopback
        self.portRange = portRange
        self.localCredentials = localCredentials
        self.consentFreshness = consentFreshness
    }

    /// Host candidates on every usable interface (IPv4, and global IPv6) and on 127.0.0.1, no servers: what
    /// works between machines and on one. The default of every ``WebRTCNegotiator``.
    public static var allInterfaces: IceConfiguration { IceConfiguration() }

    /// Host candidates on 127.0.0.1 only: what tests and same-machine peers use.
    public static var loopback: IceConfiguration { IceConfiguration(localAddresses: ["127.0.0.1"]) }
}
