import TokKitMedia

/// How a ``VP8Encoder`` compresses: size, rate and tuning. Plain data, `Sendable`; checked by ``validate()``.
///
/// The fixed part of the configuration follows WebRTC's libvpx VP8 wrapper for real-time calls: one pass, CBR,
/// no look-ahead (lag 0), realtime deadline, undershoot 100 % / overshoot 15 %, a 1000 ms rate buffer
/// (500 ms initial, 600 ms optimal), quantizer 2...56 (12...56 for screen content), intra frames capped by
/// `VP8E_SET_MAX_INTRA_BITRATE_PCT`, static threshold 1, one token partition.
public struct VP8EncoderSettings: Hashable, Sendable {
    /// Picture size in pixels; every frame handed to the encoder must be I420 of exactly this size.
    public var width: Int
    public var height: Int
    /// The nominal frame rate, used by rate control (frame timestamps drive the actual pacing).
    public var framesPerSecond: Int
    /// Target bitrate in bits per second (libvpx works in kbit/s; values are rounded down, minimum 1 kbit/s).
    public var bitrate: Int
    /// What the source shows. `.detail` and `.text` switch on libvpx's screen-content mode
    /// (`VP8E_SET_SCREEN_CONTENT_MODE` 1 resp. 2, the latter dropping frames rather than blurring text), a higher
    /// minimum quantizer and frame dropping under rate pressure: friendly to the low frame rates of screens.
    public var contentHint: VideoContentHint
    /// libvpx speed: a NEGATIVE value -16...-1 selects a fixed speed (WebRTC uses -6); a positive one switches on
    /// automatic speed selection, which was 1.5-2x slower here.
    public var cpuUsed: Int
    /// The most frames between two keyframes (libvpx inserts one when reached). With temporal layers the encoder
    /// places it itself, at the first layer-0 frame at least this many frames after the last keyframe.
    public var keyframeMaxInterval: Int
    /// Error-resilient mode: frames do not depend on probability context from earlier frames, so a lost packet
    /// hurts less. On by default, as in WebRTC.
    public var errorResilient: Bool
    /// Encoder threads (1 keeps the call's CPU budget predictable on small machines).
    public var threads: Int
    /// Temporal layers (1...3): 1 is a single layer; 3 the L1T3 pattern 0, 2, 1, 2 browsers send in simulcast
    /// (``VP8TemporalPattern``), so that an SFU can forward a quarter, half or all of the frames.
    public var temporalLayers: Int = 1

    public init(
        width: Int, height: Int, framesPerSecond: Int = 30, bitrate: Int = 1_000_000,
        contentHint: VideoContentHint = .none, cpuUsed: Int = -6, keyframeMaxInterval: Int = 3000,
        errorResilient: Bool = true, threads: Int = 1
    ) {
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        self.bitrate = bitrate
        self.contentHint = contentHint
        self.cpuUsed = cpuUsed
        self.keyframeMaxInterval = keyframeMaxInterval
        self.errorResilient = errorResilient
        self.threads = threads
    }

    /// Whether the screen-content tuning applies (``contentHint`` is `.detail` or `.text`).
    public var isScreenContent: Bool { contentHint == .detail || contentHint == .text }

    /// The I420 format frames must have.
    public var frameFormat: VideoFormat { .i420(width: width, height: height, fps: Double(framesPerSecond)) }

    /// Throws ``CodecError/invalidSettings(_:)`` naming the first value out of range.
    public func validate() throws(CodecError) {
        guard (2...16384).contains(width), (2...16384).contains(height) else {
            throw .invalidSettings("size \(width)x\(height) (2...16384 each)")
        }
        guard (1...240).contains(framesPerSecond) else { throw .invalidSettings("framesPerSecond \(framesPerSecond) (1...240)") }
        guard (1_000...100_000_000).contains(bitrate) else { throw .invalidSettings("bitrate \(bitrate) (1000...100000000 bits/s)") }
        guard (-16...16).contains(cpuUsed) else { throw .invalidSettings("cpuUsed \(cpuUsed) (-16...16)") }
        guard keyframeMaxInterval >= 1 else { throw .invalidSettings("keyframeMaxInterval \(keyframeMaxInterval) (>= 1)") }
        guard (1...16).contains(threads) else { throw .invalidSettings("threads \(threads) (1...16)") }
        guard (1...3).contains(temporalLayers) else {
            throw .invalidSettings("temporalLayers \(temporalLayers) (1...3)")
        }
    }
}
