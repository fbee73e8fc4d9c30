import TokKitMedia

/// Why a media pipeline could not be built or configured. Nothing was started when one is thrown.
///
/// Value type, usable from any thread.
public enum StreamingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Encode settings out of range: a size that is not positive and even, a frame rate or bitrate that is
    /// not positive.
    case invalidSettings(String)
    /// The audio format is not one the pipelines carry (48 kHz, mono or stereo).
    case unsupportedAudioFormat(AudioFormat)
    /// The pipeline was closed.
    case closed

    public var description: String {
        switch self {
        case let .invalidSettings(why): "invalid encode settings: \(why)"
        case let .unsupportedAudioFormat(f): "unsupported audio format \(f) (needs 48 kHz, mono or stereo)"
        case .closed: "pipeline closed"
        }
    }
}
