/// Why an ``ICEAgent`` operation failed.
///
/// Value type, usable from any thread.
public enum ICEError: Error, Sendable, Hashable {
    /// libnice could not create the agent or its stream.
    case agentCreationFailed
    /// An address in the configuration is not a numeric IPv4/IPv6 address.
    case invalidAddress(String)
    /// A network interface in the configuration has no IPv4 address.
    case unknownInterface(String)
    /// An ICE server URL is malformed or uses an unknown scheme (RFC 7064/7065).
    case invalidServerURL(String)
    /// An ICE server host name did not resolve.
    case unresolvableHost(String)
    /// libnice refused the TURN server settings.
    case relayRejected(String)
    /// The transport policy is ``ICETransportPolicy/relay`` but no TURN server is configured: no candidate
    /// could ever be used.
    case noRelayServer
    /// Credentials outside RFC 8839 limits (ufrag 4–256, pwd 22–256 ice-chars).
    case invalidCredentials
    /// libnice could not allocate host candidates (no address, or the port range is exhausted).
    case gatheringFailed
    /// A remote candidate line that libnice cannot parse (mDNS `.local` names included).
    case invalidCandidate(String)
    /// A remote candidate for a component other than 1 (TokKit requires rtcp-mux and BUNDLE).
    case unsupportedComponent(Int)
    /// A remote TCP candidate: ICE-TCP is off.
    case unsupportedTransport(String)
    /// The datagram could not be sent: no selected pair yet, or the socket failed.
    case sendFailed
    /// The datagram exceeds 65 535 bytes.
    case datagramTooLarge(Int)
    /// The agent is closed.
    case closed
    /// Connectivity failed: every candidate pair failed after the peer's end-of-candidates, consent expired, or
    /// gathering ended without a usable local candidate (the agent's ``ICEState/failed``).
    case connectivityFailed
}
