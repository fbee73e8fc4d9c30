/// One opaque message of a WebRTC negotiation, relayed by the server between a publisher and one subscriber.
/// The server never reads `payload`; ``kind`` tells the receiving ``MediaNegotiator`` how to apply it.
public struct NegotiationMessage: Sendable, Hashable {
    /// How to apply the payload (the wire's `NegotiationKind`).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// SDP offer text.
        case offer
        /// SDP answer text.
        case answer
        /// One ICE candidate.
        case candidate
        /// No more candidates; empty payload.
        case endOfCandidates
    }

    /// How the receiving end applies ``payload``.
    public var kind: Kind
    /// The SDP text, the candidate attribute value (`candidate:…`, no `a=`), or empty for ``Kind/endOfCandidates``.
    public var payload: String

    /// A message to send with ``NegotiationChannel/send(_:)``.
    public init(kind: Kind, payload: String) {
        self.kind = kind
        self.payload = payload
    }
}

/// Names one negotiation: a subscription of one subscriber to one stream, seen from one end.
public struct MediaNegotiationContext: Sendable, Hashable {
    /// Which end this client is.
    public enum Side: Sendable, Hashable {
        /// This client publishes the stream and sends media.
        case publisher
        /// This client subscribes to the stream and receives media.
        case subscriber
    }

    /// Which end this client is: the publisher's, which offers and sends, or the subscriber's, which answers and
    /// receives.
    public let side: Side
    /// The stream being subscribed to.
    public let streamID: StreamID
    /// The server's id for this subscription; unique within the session.
    public let subscriberID: SubscriberID
    /// The connection at the other end (the subscriber's, seen from the publisher, and vice versa).
    public let peerConnectionID: ConnectionID
    /// Whether the subscriber wants audio / video (only meaningful to the publisher).
    public let wantsAudio: Bool
    /// Whether the subscriber wants video (only meaningful to the publisher).
    public let wantsVideo: Bool
    /// Whether this is a routed stream's upstream (the publisher's one negotiation, with the media router): its
    /// video is sent in simulcast layers (Docs/Routing.md, "Simulcast").
    public internal(set) var isUpstream = false
}
