import TokKitMedia

/// Why a codec could not be created or could not encode or decode one unit. Nothing is written to the caller's
/// output when one is thrown, and the codec stays usable (a decoder error means "request a keyframe").
public enum CodecError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A settings value is out of range; the string names it.
    case invalidSettings(String)
    /// libvpx refused a call (`operation`), with its status and its error detail text (may be empty).
    case libvpx(operation: String, status: VPXStatus, detail: String)
    /// libopus refused a call (`operation`) with a negative status.
    case libopus(operation: String, status: OpusStatus)
    /// A video frame is not what the encoder was configured for (it takes I420 at its configured size only;
    /// convert and scale with ``VideoConverter`` first).
    case unsupportedFormat(expected: VideoFormat, actual: VideoFormat)
    /// PCM handed to an encoder is not exactly one frame: `expected` and `actual` count Int16 samples.
    case wrongFrameLength(expected: Int, actual: Int)
    /// An output buffer holds `size` elements where `needed` are required.
    case bufferTooSmall(size: Int, needed: Int)
    /// Compressed data could not be decoded (damaged, truncated, empty, or decodable only after a keyframe).
    /// The decoder stays usable; the caller should request a keyframe (video) or conceal the loss (audio).
    case corruptFrame(String)
    /// The decoded picture was dropped because every frame of the decoder's pool is still held.
    case poolExhausted(capacity: Int)
    /// The frame handed to an encoder was borrowed and its owner has taken the memory back
    /// (``VideoFrameError/expired``): nothing was encoded.
    case expiredFrame

    public var description: String {
        switch self {
        case let .invalidSettings(what): "invalid codec settings: \(what)"
        case let .libvpx(op, status, detail): "\(op) failed: \(status)\(detail.isEmpty ? "" : " (\(detail))")"
        case let .libopus(op, status): "\(op) failed: \(status)"
        case let .unsupportedFormat(expected, actual): "encoder takes \(expected), got \(actual)"
        case let .wrongFrameLength(expected, actual): "expected one frame of \(expected) samples, got \(actual)"
        case let .bufferTooSmall(size, needed): "output buffer holds \(size), needs \(needed)"
        case let .corruptFrame(detail): "corrupt frame: \(detail)"
        case let .poolExhausted(capacity): "all \(capacity) decoded-frame buffers are in use"
        case .expiredFrame: "the borrowed frame expired before it was encoded"
        }
    }
}
