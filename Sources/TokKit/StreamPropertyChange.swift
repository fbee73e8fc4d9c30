/// One property of a ``SessionStream`` that changed, with its new value (the JS SDK's `streamPropertyChanged`).
///
/// Reported to everyone in the session, the publisher included, when the publisher toggles
/// ``Publisher/publishAudio`` / ``Publisher/publishVideo``, changes its video size or its video type. (A stream's
/// name is fixed when it is published.)
public enum StreamPropertyChange: Sendable, Hashable {
    /// ``SessionStream/hasAudio`` changed: the publisher set ``Publisher/publishAudio`` (or a moderator muted it).
    case hasAudio(Bool)
    /// ``SessionStream/hasVideo`` changed: the publisher set ``Publisher/publishVideo``.
    case hasVideo(Bool)
    /// ``SessionStream/videoDimensions`` changed: the publisher set ``Publisher/videoDimensions``.
    case videoDimensions(VideoDimensions?)
    /// ``SessionStream/videoType`` changed: the publisher set ``Publisher/videoType``.
    case videoType(StreamVideoType)
}
