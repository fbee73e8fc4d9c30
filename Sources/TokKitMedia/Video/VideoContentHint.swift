/// What a video source shows, so the encoder can favour smooth motion or sharp detail (the SDK's
/// `OTVideoContentHint`).
public enum VideoContentHint: Sendable, Hashable, CaseIterable {
    /// No preference.
    case none
    /// Movement matters more than detail (camera, games).
    case motion
    /// Fine detail matters more than frame rate (screens, slides).
    case detail
    /// Text: detail, and rate can drop further (documents, terminals).
    case text
}
