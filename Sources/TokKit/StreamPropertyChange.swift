/// One property of a ``SessionStream`` that changed, with its new value (the JS SDK's `streamPropertyChanged`).
///
/// Reported to everyone in the session, the publisher included, when the publisher toggles
/// ``Publisher/publishAudio`` / ``Publisher/publishVideo``, changes its video size or its video type. (A stream's
/// name is fixed when it is published.)
public enum StreamPropertyChange: Sendable, Hashable {
    case hasAudio(Bool)
    case hasVideo(Bool)
    case videoDimensions(VideoDimensions?)
    case videoType(StreamVideoType)
}
