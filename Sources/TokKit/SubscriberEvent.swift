/// Everything a ``Subscriber`` reports, as one enum: the ``SubscriberDelegate`` methods as values, for
/// `for await event in subscriber.events`. The stream and the delegate see the same events in the same order, in
/// order with the session's own events. A subscriber is used once: its streams end after ``disconnected``, or
/// after ``failed(_:)`` when the server refused the subscription.
public enum SubscriberEvent: Sendable, Hashable {
    /// Media negotiation completed (`subscriberDidConnect:`).
    case connected
    /// The subscriber stopped receiving the stream: unsubscribe, stream destroyed, session dropped
    /// (`subscriberDidDisconnect:`). The last event.
    case disconnected
    /// Subscribing failed (`subscriber:didFailWithError:`).
    case failed(SessionError)
    /// Media stopped arriving (the network path was lost) and the SDK is restoring it
    /// (`subscriberDidStartReconnecting(toStream:)`, OpenTok's `subscriberDidDisconnectFromStream:`).
    case reconnecting
    /// Media arrives again after ``reconnecting`` (`subscriberDidReconnect(toStream:)`, OpenTok's
    /// `subscriberDidReconnectToStream:`). An outage that is not restored within 30 s ends in ``failed(_:)``.
    case reconnected
    /// Once a second while connected: decoding, RTP, freeze and path statistics with quality scores
    /// (``SubscriberStatisticsDelegate``, OpenTok's `subscriber:videoNetworkStatsUpdated:` and
    /// `subscriber:audioNetworkStatsUpdated:`). Only while somebody reads the events or the delegate adopts
    /// ``SubscriberStatisticsDelegate``.
    case statisticsUpdated(SubscriberStatistics)
    /// Video stopped arriving, and why (`subscriberVideoDisabled:reason:`).
    case videoDisabled(SubscriberVideoEventReason)
    /// Video resumed, and why (`subscriberVideoEnabled:reason:`).
    case videoEnabled(SubscriberVideoEventReason)

    /// Calls the matching delegate method.
    func deliver(to delegate: any SubscriberDelegate, from subscriber: Subscriber) {
        switch self {
        case .connected: delegate.subscriberDidConnect(toStream: subscriber)
        case .disconnected: delegate.subscriberDidDisconnect(fromStream: subscriber)
        case .failed(let error): delegate.subscriber(subscriber, didFailWithError: error)
        case .reconnecting: delegate.subscriberDidStartReconnecting(toStream: subscriber)
        case .reconnected: delegate.subscriberDidReconnect(toStream: subscriber)
        case .statisticsUpdated(let statistics):
            (delegate as? any SubscriberStatisticsDelegate)?.subscriber(subscriber, statisticsUpdated: statistics)
        case .videoDisabled(let reason): delegate.subscriberVideoDisabled(subscriber, reason: reason)
        case .videoEnabled(let reason): delegate.subscriberVideoEnabled(subscriber, reason: reason)
        }
    }
}
