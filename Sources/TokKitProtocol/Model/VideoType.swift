/// The source of a stream's video: `camera`, `screen` or `custom` (a program-supplied capturer).
public enum VideoType: String, Codable, Sendable, CaseIterable {
    case camera
    case screen
    case custom
}
