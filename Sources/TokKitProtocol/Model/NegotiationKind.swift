/// The kind of a relayed WebRTC negotiation message. The server never reads the payload; the kind tells the peer
/// how to apply it: `offer`/`answer` carry SDP text, `candidate` carries one ICE candidate (see Docs/Protocol.md for
/// the payload convention), `endOfCandidates` has an empty payload.
public enum NegotiationKind: String, Codable, Sendable, CaseIterable {
    case offer
    case answer
    case candidate
    case endOfCandidates
}
