/// A ``MediaNegotiator`` that exchanges placeholder text instead of SDP, so that subscriptions complete at the
/// signaling level without any media (signaling-only clients, tests): the publisher's end sends an `offer`, the
/// subscriber's end answers and reports itself connected.
///
/// Stateless and thread-safe.
///
/// A test double, not API for apps: it is SPI (`@_spi(Testing) import TokKit`), like TokKit's other test hooks,
/// so a test of an app can run sessions without media while the app itself cannot ship with it by accident.
@_spi(Testing) public final class PlaceholderNegotiator: MediaNegotiator {
    /// A negotiator with nothing to configure; one instance may serve any number of sessions.
    public init() {}

    /// The publisher's end sends a placeholder `offer`; the subscriber's end waits for it.
    public func negotiationDidStart(_ context: MediaNegotiationContext, channel: NegotiationChannel) {
        guard context.side == .publisher else { return }
        try? channel.send(NegotiationMessage(kind: .offer, payload: "placeholder-offer \(context.streamID)"))
    }

    /// The subscriber's end answers an `offer` with a placeholder `answer` and reports itself connected; anything else
    /// is ignored.
    public func negotiation(_ context: MediaNegotiationContext, didReceive message: NegotiationMessage,
                            channel: NegotiationChannel) {
        guard context.side == .subscriber, message.kind == .offer else { return }
        try? channel.send(NegotiationMessage(kind: .answer, payload: "placeholder-answer \(context.streamID)"))
        channel.reportConnected()
    }

    /// Nothing to release.
    public func negotiationDidEnd(_ context: MediaNegotiationContext) {}
}
