/// A ``MediaNegotiator``'s way back into its session for one negotiation: relay a message to the peer, or report
/// the outcome. Cheap to copy, safe from any thread; calls after the negotiation ended (or the session went
/// away) are ignored.
public struct NegotiationChannel: Sendable {
    /// The negotiation this channel belongs to.
    public let context: MediaNegotiationContext
    private weak let session: Session?

    init(context: MediaNegotiationContext, session: Session) {
        self.context = context
        self.session = session
    }

    /// Sends `message` to the other end, through the server. Throws ``SessionError/invalidParameter(_:cause:)`` when
    /// the payload exceeds ``maxPayloadBytes`` and ``SessionError/notConnected`` when the session is not
    /// connected (messages are not queued across reconnects: the media layer restarts its negotiation).
    public func send(_ message: NegotiationMessage) throws(SessionError) {
        guard message.payload.utf8.count <= Self.maxPayloadBytes else {
            throw .invalidParameter("negotiation payload is larger than \(Self.maxPayloadBytes) bytes")
        }
        guard let session else { throw .notConnected }
        try session.relayNegotiation(message, for: context)
    }

    /// Media flows: the subscriber is connected to its stream.
    public func reportConnected() {
        session?.negotiationReportedConnected(context)
    }

    /// Media stopped arriving on a connected subscription and the media layer is restoring it: the subscriber
    /// reports ``SubscriberEvent/reconnecting``.
    public func reportReconnecting() {
        session?.negotiationReportedOutage(context, over: false)
    }

    /// Media arrives again after ``reportReconnecting()``: the subscriber reports ``SubscriberEvent/reconnected``.
    public func reportReconnected() {
        session?.negotiationReportedOutage(context, over: true)
    }

    /// The negotiation failed for good; the subscriber reports `error` and is removed.
    public func reportFailed(_ error: SessionError) {
        session?.negotiationReportedFailure(context, error: error)
    }

    /// The session this negotiation belongs to, while it exists (for the media layer's lookups).
    var owner: Session? { session }

    /// Largest payload, in UTF-8 bytes (the protocol's limit).
    public static let maxPayloadBytes = 60_000
}
