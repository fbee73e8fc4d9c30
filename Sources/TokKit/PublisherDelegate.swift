/// Receives a ``Publisher``'s events, as the SDK's `OTPublisherKitDelegate`. Every method is optional.
///
/// Called on the delegate queue of the session the publisher is published in, in order with that session's
/// own events. Held weakly.
public protocol PublisherDelegate: AnyObject, Sendable {
    /// The server accepted the stream; ``Publisher/stream`` is set.
    func publisher(_ publisher: Publisher, streamCreated stream: SessionStream)
    /// The stream ended (unpublish, disconnect, or the session dropped for good).
    func publisher(_ publisher: Publisher, streamDestroyed stream: SessionStream)
    /// Publishing failed, or a published stream failed.
    func publisher(_ publisher: Publisher, didFailWithError error: SessionError)
}

extension PublisherDelegate {
    public func publisher(_ publisher: Publisher, streamCreated stream: SessionStream) {}
    public func publisher(_ publisher: Publisher, streamDestroyed stream: SessionStream) {}
    public func publisher(_ publisher: Publisher, didFailWithError error: SessionError) {}

}

/// A ``PublisherDelegate`` that also wants the publisher's statistics once a second (OpenTok's
/// `OTPublisherKitNetworkStatsDelegate`). Statistics are taken and delivered only for publishers whose delegate
/// adopts this, or whose ``Publisher/events`` someone is reading.
public protocol PublisherStatisticsDelegate: PublisherDelegate {
    /// Once a second while published: the encoders' figures and each subscription's network statistics (packets
    /// and bytes sent, loss and jitter the subscriber reports, round-trip time, path, quality score).
    func publisher(_ publisher: Publisher, statisticsUpdated statistics: PublisherStatistics)
}
