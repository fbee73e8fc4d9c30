/// Receives a ``Subscriber``'s events, as the SDK's `OTSubscriberKitDelegate`. Every method is optional.
///
/// Called on the delegate queue of the session the subscriber belongs to, in order with that session's own
/// events. Held weakly.
public protocol SubscriberDelegate: AnyObject, Sendable {
    /// The negotiation with the publisher completed.
    func subscriberDidConnect(toStream subscriber: Subscriber)
    /// The subscriber stopped receiving the stream (unsubscribe, stream destroyed, session dropped).
    func subscriberDidDisconnect(fromStream subscriber: Subscriber)
    /// Subscribing failed.
    func subscriber(_ subscriber: Subscriber, didFailWithError error: SessionError)
    /// Media stopped arriving (the network path was lost; OpenTok's `subscriberDidDisconnectFromStream:`): the
    /// SDK restores it (ICE restart) without a new subscription. Followed by ``subscriberDidReconnect(toStream:)``,
    /// or by a failure (1006) when it cannot within 30 s.
    func subscriberDidStartReconnecting(toStream subscriber: Subscriber)
    /// Media arrives again after ``subscriberDidStartReconnecting(toStream:)`` (OpenTok's
    /// `subscriberDidReconnectToStream:`).
    func subscriberDidReconnect(toStream subscriber: Subscriber)
    /// Video stopped arriving, and why.
    func subscriberVideoDisabled(_ subscriber: Subscriber, reason: SubscriberVideoEventReason)
    /// Video resumed, and why.
    func subscriberVideoEnabled(_ subscriber: Subscriber, reason: SubscriberVideoEventReason)
}

extension SubscriberDelegate {
    public func subscriberDidConnect(toStream subscriber: Subscriber) {}
    public func subscriberDidDisconnect(fromStream subscriber: Subscriber) {}
    public func subscriber(_ subscriber: Subscriber, didFailWithError error: SessionError) {}
    public func subscriberDidStartReconnecting(toStream subscriber: Subscriber) {}
    public func subscriberDidReconnect(toStream subscriber: Subscriber) {}

    public func subscriberVideoDisabled(_ subscriber: Subscriber, reason: SubscriberVideoEventReason) {}
    public func subscriberVideoEnabled(_ subscriber: Subscriber, reason: SubscriberVideoEventReason) {}
}

/// A ``SubscriberDelegate`` that also wants the subscriber's statistics once a second (OpenTok's
/// `OTSubscriberKitNetworkStatsDelegate`). Statistics are taken and delivered only for subscribers whose delegate
/// adopts this, or whose ``Subscriber/events`` someone is reading.
public protocol SubscriberStatisticsDelegate: SubscriberDelegate {
    /// Once a second while connected: what arrives and how well (frames, freezes, packets, loss, jitter, path,
    /// quality scores).
    func subscriber(_ subscriber: Subscriber, statisticsUpdated statistics: SubscriberStatistics)
}
