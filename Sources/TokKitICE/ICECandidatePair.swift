/// The candidate pair ICE selected for sending: which path media takes (RFC 8445 §8.1.1), as WebRTC's
/// `RTCIceCandidatePairStats` names its ends.
///
/// Value type, usable from any thread.
public struct ICECandidatePair: Sendable, Hashable, CustomStringConvertible {
    /// One end of the pair.
    public struct Endpoint: Sendable, Hashable {
        /// Host, server-reflexive (through NAT, learnt by STUN), peer-reflexive, or relayed (TURN).
        public var kind: ICECandidate.Kind
        /// The transport address, numeric (for a relayed local end, the address on the TURN server).
        public var address: String
        public var port: UInt16

        public init(kind: ICECandidate.Kind, address: String, port: UInt16) {
            self.kind = kind
            self.address = address
            self.port = port
        }
    }

    /// This agent's end.
    public var local: Endpoint
    /// The peer's end.
    public var remote: Endpoint

    public init(local: Endpoint, remote: Endpoint) {
        self.local = local
        self.remote = remote
    }

    /// Whether media goes through a TURN server (either end relayed).
    public var isRelayed: Bool { local.kind == .relayed || remote.kind == .relayed }

    /// `host 198.18.1.2:50000 -> relay 198.18.9.2:49152`.
    public var description: String {
        "\(Self.name(local.kind)) \(local.address):\(local.port) -> \(Self.name(remote.kind)) \(remote.address):\(remote.port)"
    }

    /// The SDP `typ` name of a kind (RFC 8839).
    public static func name(_ kind: ICECandidate.Kind) -> String {
        switch kind {
        case .host: "host"
        case .serverReflexive: "srflx"
        case .peerReflexive: "prflx"
        case .relayed: "relay"
        }
    }
}
