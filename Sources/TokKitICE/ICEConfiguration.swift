/// How an ``ICEAgent`` gathers and checks candidates: the SDK's custom ICE configuration plus the host
/// addresses to use.
///
/// Value type, usable from any thread.
public struct ICEConfiguration: Sendable, Hashable {
    /// STUN and TURN servers. libnice uses the first STUN URL and every TURN URL.
    public var servers: [ICEServer]
    /// Which candidates may be used.
    public var transportPolicy: ICETransportPolicy
    /// Numeric addresses to gather host candidates on, and only those. With no addresses and no
    /// ``interfaces``, the agent gathers on every usable interface (see ``includesLoopback``).
    public var localAddresses: [String]
    /// Interface names (`eth0`) whose IPv4 address is added to ``localAddresses``.
    public var interfaces: [String]
    /// When gathering on every usable interface (no ``localAddresses``, no ``interfaces``), gather on `127.0.0.1`
    /// if no other interface is up, so that two peers on one machine connect even when it has no other
    /// interface. A machine with other interfaces leaves loopback out, as browsers do: its peers meet on those,
    /// and loopback candidates would only slow down connecting to peers on other machines (their pairs are
    /// checked first and delay the nomination).
    public var includesLoopback: Bool
    /// Local ports to bind, or `nil` for any.
    public var portRange: ClosedRange<UInt16>?
    /// Local ufrag/pwd to use instead of random ones.
    public var localCredentials: ICECredentials?
    /// libnice's RFC 7675 consent freshness, off by default. Measured in the network lab (libnice 0.1.21): under 5 %
    /// random loss it declared working paths failed (media still arriving) about every 30 s. TokKit's media links
    /// watch the path themselves instead: no packet from the peer for 2.5 s begins an outage and a restart, 30 s
    /// without one fails (Sources/TokKit/MediaLink.swift). The peer's own consent checks are answered either way.
    /// Decided at agent creation.
    public var consentFreshness: Bool
    /// Receive batching, off (`nil`) by default: the agent's network thread waits at least this long after each
    /// wake-up before it waits for the network again, so that the datagrams arriving meanwhile are read in one
    /// wake-up instead of one each (timers due sooner still run on time). For receivers that take the delay, a
    /// recorder: at about 85 datagrams a second a lone recorded stream's network thread woke about 90 times a
    /// second, and the wake-ups (the kernel's scheduling, GLib's loop iteration, libnice's read that ends in
    /// `EAGAIN`) were about half of its CPU time. Datagrams are read up to this much late; their arrival times
    /// (transport-wide feedback to the sender, the receive statistics) are the kernel's receive timestamps
    /// (``ICEAgent/receivedDatagramArrival``), and work handed to the thread (timers, ``ICEAgent/perform(_:)``,
    /// ``ICEAgent/close()``) ends a wait at once. `SessionArchiver` uses 40 ms by default. Decided at agent creation.
    public var receiveBatching: Duration?

    /// A configuration; the defaults gather on every usable interface and loopback, with no servers.
    public init(servers: [ICEServer] = [], transportPolicy: ICETransportPolicy = .all,
                localAddresses: [String] = [], interfaces: [String] = [], includesLoopback: Bool = true,
                portRange: ClosedRange<UInt16>? = nil, localCredentials: ICECredentials? = nil,
                consentFreshness: Bool = false, receiveBatching: Duration? = nil) {
        self.servers = servers
        self.transportPolicy = transportPolicy
        self.localAddresses = localAddresses
        self.interfaces = interfaces
        self.includesLoopback = includesLoopback
        self.portRange = portRange
        self.localCredentials = localCredentials
        self.consentFreshness = consentFreshness
        self.receiveBatching = receiveBatching
    }

    /// Host candidates on every usable interface (IPv4, and global IPv6), or on 127.0.0.1 when no other is up; no
    /// servers: what works between machines and on one. The default of every ``WebRTCNegotiator``.
    public static var allInterfaces: ICEConfiguration { ICEConfiguration() }

    /// Host candidates on 127.0.0.1 only: what tests and same-machine peers use.
    public static var loopback: ICEConfiguration { ICEConfiguration(localAddresses: ["127.0.0.1"]) }
}
