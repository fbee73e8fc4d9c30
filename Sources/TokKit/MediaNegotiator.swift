/// The hook where the WebRTC layer plugs into sessions: it produces and applies the offers, answers and ICE
/// candidates that a ``Session`` relays through the server between a publisher and each of its subscribers.
///
/// ## Flow
/// 1. A client calls ``Session/subscribe(_:)``; the server assigns a subscriber id and tells the publisher's
///    client. Both sessions call ``negotiationDidStart(_:channel:)``, each with its own ``MediaNegotiationContext``
///    (``MediaNegotiationContext/Side-swift.enum/publisher`` on one end,
///    ``MediaNegotiationContext/Side-swift.enum/subscriber`` on the other).
/// 2. Messages sent through the ``NegotiationChannel`` arrive at the other end's
///    ``negotiation(_:didReceive:channel:)``, in order.
/// 3. When media flows, the subscriber's negotiator calls ``NegotiationChannel/reportConnected()`` (the
///    subscriber's delegate then gets `subscriberDidConnect`); on failure ``NegotiationChannel/reportFailed(_:)``.
/// 4. Unsubscribe, unpublish, stream or connection destroyed, or disconnect: ``negotiationDidEnd(_:)``, once per
///    started negotiation, after which the channel's calls are ignored.
///
/// ## Threading
/// For one session, the methods are called one at a time from that session's network task, in the order
/// the messages arrived. Return quickly (hand long work to the media thread). Channel methods may be called
/// from any thread.
///
/// The default is ``WebRTCNegotiator`` (real media over WebRTC). `PlaceholderNegotiator`
/// (`@_spi(Testing) import TokKit`) exchanges placeholder text instead, for tests.
///
/// ## Why this is public
/// It is the one extension point between the session (signaling, presence, the relay) and the media: an app can
/// bring its own media engine (another WebRTC stack, a media server's client, a recorder that never decodes) and
/// keep TokKit's sessions, streams and subscriptions, by implementing this protocol and setting
/// ``Session/mediaNegotiator`` before connecting. Its companions ``NegotiationChannel``, ``NegotiationMessage``
/// and ``MediaNegotiationContext`` are public for that reason only; the types behind ``WebRTCNegotiator``
/// (its links, peers and pipelines) are not.
public protocol MediaNegotiator: AnyObject, Sendable {
    /// A subscription started: make this end's peer for `context`. The publisher's end sends the offer through
    /// `channel`; the subscriber's end waits for it.
    func negotiationDidStart(_ context: MediaNegotiationContext, channel: NegotiationChannel)
    /// The other end sent `message` (an offer, answer, candidate or end of candidates) for `context`; apply it, and
    /// answer through `channel` where the protocol says so.
    func negotiation(_ context: MediaNegotiationContext, didReceive message: NegotiationMessage,
                     channel: NegotiationChannel)
    /// The subscription ended: release this end's peer for `context`. Called once per started negotiation.
    func negotiationDidEnd(_ context: MediaNegotiationContext)
}
