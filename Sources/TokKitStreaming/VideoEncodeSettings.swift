import TokKitMedia

/// What a ``VideoSendPipeline`` encodes: size, frame rate, target bitrate and content tuning.
///
/// Frames of any size and format are converted and scaled to ``width`` × ``height`` before encoding.
/// Value type, usable from any thread.
public struct VideoEncodeSettings: Hashable, Sendable {
    /// Encoded width in pixels (positive, even).
    public var width: Int
    /// Encoded height in pixels (positive, even).
    public var height: Int
    /// The frame rate the encoder plans its rate control for.
    public var framesPerSecond: Int
    /// Target bitrate in bits per second.
    public var bitrate: Int
    /// `.detail` and `.text` select the encoder's screen-content tuning.
    public var contentHint: VideoContentHint
    /// Simulcast: how many spatial layers to encode at most (1...3; fewer for a small size, see
    /// ``SimulcastLayout``), each from the same converted picture, each sent on its own SSRC to peers that
    /// negotiated them (``PeerConnection/sendVideoLayerRTP(_:payload:timestamp:marker:)``). 1: no simulcast.
    public var simulcastLayers: Int = 1
    /// Encode exactly ``simulcastLayers`` layers whatever the size, instead of fewer for a small one: set once the
    /// layer SSRCs were announced (a routed upstream's `a=ssrc-group:SIM`), so that a later smaller size (a new
    /// capturer) still sends a layer on every SSRC, however small.
    public var simulcastLayersExact = false
    /// Temporal layers each layer's encoder makes (1...3; ``TokKitCodecs/VP8TemporalPattern``): 3 for a routed
    /// upstream, so that the media router can forward a quarter, half or all of the frames to a subscriber
    /// (`preferredFrameRate`); 1 (a single layer) otherwise.
    public var temporalLayers = 1
    /// Encode smaller while the bitrate cannot carry ``width`` × ``height`` (a congested or slow path), and back at
    /// the full size when it can (WebRTC's `maintain-framerate` degradation, for a camera): see
    /// ``VideoSendStatistics/encodedWidth``. Only a single stream adapts: simulcast already sends smaller layers,
    /// and screen content (``isScreenContent``) keeps its size, as text must stay readable.
    public var adaptsResolution = true

    public init(width: Int = 640, height: Int = 480, framesPerSecond: Int = 30, bitrate: Int? = nil,
                contentHint: VideoContentHint = .none) {
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        self.bitrate = bitrate ?? Self.defaultBitrate(width: width, height: height, framesPerSecond: framesPerSecond)
        self.contentHint = contentHint
    }

    /// About 1 Mbps for 640x480 at 30 fps, scaled with the pixel rate (at least 100 kbps, at most 4 Mbps).
    public static func defaultBitrate(width: Int, height: Int, framesPerSecond: Int) -> Int {
        let pixelRate = Double(max(width, 0)) * Double(max(height, 0)) * Double(max(framesPerSecond, 0))
        let bps = pixelRate / (640.0 * 480.0 * 30.0) * 1_000_000
        return Int(min(max(bps, 100_000), 4_000_000))
    }

    /// The layers these settings encode (one unless ``simulcastLayers`` asks for more and the size allows).
    public var simulcastLayout: SimulcastLayout {
        SimulcastLayout(width: width, height: height, bitrate: bitrate, maximumLayers: simulcastLayers,
                        exact: simulcastLayersExact)
    }

    /// Whether the encoder should use its screen-content tuning.
    public var isScreenContent: Bool { contentHint == .detail || contentHint == .text }

    /// Throws ``StreamingError/invalidSettings(_:)`` when a value is out of range.
    public func validate() throws(StreamingError) {
        guard width > 0, height > 0, width % 2 == 0, height % 2 == 0, width <= 4096, height <= 4096 else {
            throw .invalidSettings("size \(width)x\(height) must be positive, even and at most 4096")
        }
        guard (1...120).contains(framesPerSecond) else {
            throw .invalidSettings("frame rate \(framesPerSecond) must be 1...120")
        }
        guard (10_000...50_000_000).contains(bitrate) else {
            throw .invalidSettings("bitrate \(bitrate) must be 10 kbps...50 Mbps")
        }
        guard (1...SimulcastLayout.maximumLayers).contains(simulcastLayers) else {
            throw .invalidSettings("simulcast layers \(simulcastLayers) must be 1...\(SimulcastLayout.maximumLayers)")
        }
        guard (1...3).contains(temporalLayers) else {
            throw .invalidSettings("temporal layers \(temporalLayers) must be 1...3")
        }
    }
}
