/// What a stream's video shows, as the SDK's `OTStreamVideoType` / `OTPublisherKitVideoType`.
public enum StreamVideoType: String, Sendable, Hashable, CaseIterable {
    /// A camera (the default).
    case camera
    /// A screen or window being shared.
    case screen
    /// Anything else the application generates.
    case custom
}
