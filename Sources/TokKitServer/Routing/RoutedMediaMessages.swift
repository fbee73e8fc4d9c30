import TokKitProtocol

/// What the registry asks of ``RoutedMedia``, in the order the client messages causing them arrived.
enum RoutedMediaCommand: Sendable {
    /// A routed publisher's offer for its stream's upstream (`upstreamID` is the `subscriberId` it negotiates on).
    case publisherOffer(sessionID: String, streamID: String, upstreamID: String, connectionID: String, sdp: String)
    /// A routed publisher's trickled candidate; nil: end of candidates.
    case publisherCandidate(streamID: String, candidate: String?)
    /// A subscription to a routed stream began: Janus's offer goes to the subscriber once the feed is up.
    case subscribe(sessionID: String, streamID: String, subscriberID: String, connectionID: String)
    /// The subscriber's answer to Janus's offer.
    case subscriberAnswer(subscriberID: String, sdp: String)
    /// A subscriber's trickled candidate; nil: end of candidates.
    case subscriberCandidate(subscriberID: String, candidate: String?)
    /// The subscriber's preferred resolution chose simulcast layer `substream`, its preferred frame rate temporal
    /// layer `temporal` (Janus `configure`).
    case subscriberPreferences(subscriberID: String, substream: Int, temporal: Int)
    /// The subscription ended (unsubscribe, the subscriber left).
    case unsubscribe(subscriberID: String)
    /// The stream ended: its publisher handle and every subscription to it go; when it was the last thing session
    /// `sessionID` held at Janus, the session's room goes too (a later publish makes a new one).
    case streamEnded(streamID: String, sessionID: String)
    /// The session ended (expired): its room goes.
    case sessionEnded(sessionID: String)
    /// A moderator force-muted the stream's audio (`mute` true), or its publisher turned audio back on (false): the
    /// stream's audio `mid` is muted or unmuted at Janus (VideoRoom `moderate`).
    case moderateAudio(streamID: String, mute: Bool)
    /// Internal: Janus said the publisher's PeerConnection of `streamID` is up (its feed can be subscribed to).
    case publisherUp(streamID: String, handle: UInt64)
    /// Internal: the publisher handle `handle` of `streamID` lost its media path at Janus (hung up, its room
    /// destroyed, or its event stream ended because Janus went away).
    case upstreamLost(streamID: String, handle: UInt64, reason: String)
    /// Internal: Janus says it forwards simulcast layer `substream` to the subscriber handle `handle`.
    case substreamRelayed(subscriberID: String, handle: UInt64, substream: Int)
    /// Internal: ``RoutedMedia/layerSwitchWait`` after asking Janus for a subscription's layer (the `attempt`-th time): asked
    /// again if Janus has not switched.
    case layerSwitchCheck(subscriberID: String, attempt: Int)
    /// Internal: a subscription still waiting for its feed at its deadline fails.
    case subscriptionDeadline(subscriberID: String)
    /// Internal: the upstream of `streamID`, moving since its instance was lost, still has no new offer at its
    /// deadline: it fails.
    case movingDeadline(streamID: String)
}

/// What ``RoutedMedia`` sends back to clients, through the registry (which drops it when the subscription or
/// stream it names has ended meanwhile).
enum RoutedMediaDelivery: Sendable, Equatable {
    /// A `negotiation` from the media router to `connectionID`: Janus's answer (publisher) or offer (subscriber).
    case negotiation(connectionID: String, streamID: String, subscriberID: String, kind: NegotiationKind,
                     payload: String)
    /// An `error` (1570) naming `subscriberID`: Janus refused or failed this negotiation.
    case failure(connectionID: String, subscriberID: String, ProtocolError)
    /// The upstream `upstreamID` of `streamID` failed (after its ``failure(connectionID:subscriberID:_:)``): the
    /// stream can carry media to nobody, so the registry ends it (`streamDestroyed`, reason `forceUnpublished`).
    case upstreamFailed(streamID: String, upstreamID: String)
    /// A `mediaRestart` to the publisher `connectionID` of `streamID`: the instance its upstream `upstreamID` was
    /// answered on was lost (the session is moving); offer again now if the peer whose offer had `iceUfrag` is still
    /// current (Protocol.md 6.7 step 5).
    case mediaRestart(connectionID: String, streamID: String, upstreamID: String, iceUfrag: String, reason: String)
}

/// What ``RoutedMedia`` holds (monitoring and tests): Janus rooms by TokKit session, live Janus handles.
public struct RoutedMediaStatus: Sendable, Hashable {
    /// The VideoRoom room of each routed session that has one, by session id.
    public var rooms: [String: UInt64] = [:]
    /// Publisher handles (one per routed stream with an upstream).
    public var publishers = 0
    /// Subscriber handles, and subscriptions still waiting for their feed.
    public var subscribers = 0
    /// Whether the server holds a Janus session now (on any instance).
    public var connected = false
    /// The instance (its index in ``ServerConfiguration/janus``) each placed routed session is on, by session id.
    public var placements: [String: Int] = [:]
    /// Whether the server holds a Janus session on each instance, by index.
    public var instancesConnected: [Bool] = []
}
