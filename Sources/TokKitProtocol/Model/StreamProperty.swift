/// A stream property whose change is announced by `streamPropertyChanged`.
public enum StreamProperty: String, Codable, Sendable, CaseIterable {
    case hasAudio
    case hasVideo
    case videoDimensions
    case videoType
}
