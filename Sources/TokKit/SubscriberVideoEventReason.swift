/// Why a subscriber's video stopped or resumed, as the SDK's `OTSubscriberVideoEventReason`.
public enum SubscriberVideoEventReason: Int, Sendable, Hashable {
    /// The publisher turned its video off or on (``Publisher/publishVideo``).
    case publisherPropertyChanged = 1
    /// This subscriber turned it off or on (``Subscriber/subscribeToVideo``).
    case subscriberPropertyChanged = 2
    /// Bandwidth made the media layer drop or restore video.
    case qualityChanged = 3
    /// The codec is not supported by this client.
    case codecNotSupported = 4
}
