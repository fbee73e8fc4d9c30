/// Everything a ``Publisher`` reports, as one enum: the ``PublisherDelegate`` methods as values, for
/// `for await event in publisher.events`. The stream and the delegate see the same events in the same order, in
/// order with the session's own events. A publisher's streams end when it is released.
public enum PublisherEvent: Sendable {
    /// The server accepted the stream (`publisher:streamCreated:`).
    case streamCreated(SessionStream)
    /// The stream ended: unpublish, disconnect, or the session dropped for good (`publisher:streamDestroyed:`).
    case streamDestroyed(SessionStream)
    /// Publishing failed, or a published stream failed (`publisher:didFailWithError:`).
    case failed(SessionError)
    /// Once a second while published: the encoders and every subscription's network statistics
    /// (``PublisherStatisticsDelegate``, OpenTok's `publisher:videoNetworkStatsUpdated:` and
    /// `publisher:audioNetworkStatsUpdated:`). Only while somebody reads the events or the delegate adopts
    /// ``PublisherStatisticsDelegate``.
    case statisticsUpdated(PublisherStatistics)

    /// Calls the matching delegate method.
    func deliver(to delegate: any PublisherDelegate, from publisher: Publisher) {
        switch self {
        case .streamCreated(let stream): delegate.publisher(publisher, streamCreated: stream)
        case .streamDestroyed(let stream): delegate.publisher(publisher, streamDestroyed: stream)
        case .failed(let error): delegate.publisher(publisher, didFailWithError: error)
        case .statisticsUpdated(let statistics):
            (delegate as? any PublisherStatisticsDelegate)?.publisher(publisher, statisticsUpdated: statistics)
        }
    }
}
