/// A snapshot of a ``VideoReceivePipeline``'s counters and rates.
///
/// Value type, usable from any thread. Rates are measured over the last whole second.
public struct VideoReceiveStatistics: Hashable, Sendable {
    /// Complete frames reassembled from RTP.
    public var framesReceived = 0
    /// Frames decoded and rendered.
    public var framesDecoded = 0
    /// Of those, keyframes.
    public var keyframesDecoded = 0
    /// Frames not rendered: queue full, incomplete, waiting for a keyframe, decode error, disabled.
    public var framesDropped = 0
    /// Decoder errors.
    public var decodeErrors = 0
    /// Keyframe requests (PLI) sent to the peer.
    public var keyframeRequests = 0
    /// Received VP8 payload bytes.
    public var bytesReceived: UInt64 = 0
    /// Size of the last decoded frame.
    public var width = 0
    public var height = 0
    /// Decoded frames per second.
    public var framesPerSecond: Double = 0
    /// Received bits per second.
    public var bitrate: Double = 0
    /// Wall-clock time spent in the VP8 decoder for the frames decoded, rendering left out (WebRTC's
    /// `totalDecodeTime`); divided by ``framesDecoded``, the mean decode time.
    public var totalDecodeTime: Duration = .zero
    /// Video freezes: an interval between rendered frames of at least max(3 × the mean of the last 30, the mean
    /// + 150 ms) (WebRTC's `freezeCount`; see ``FreezeDetector``).
    public var freezeCount = 0
    /// The sum of the frozen intervals (WebRTC's `totalFreezesDuration`).
    public var totalFreezesDuration: Duration = .zero
    /// The sum of all intervals between rendered frames; ``totalFreezesDuration`` over it is the freeze ratio.
    public var totalFramesDuration: Duration = .zero
    /// How long after its expected time the last frame was rendered (the jitter buffer's delay; see
    /// ``VideoPlayoutTiming``).
    public var playoutDelay: Duration = .zero
    /// Where the playout delay is heading: the lateness most recent frames stayed within.
    public var targetPlayoutDelay: Duration = .zero
    /// The last frame rendered: its RTP timestamp and when (lip sync follows it, ``AudioVideoSync``).
    public var lastRenderedFrame: RenderedFrameInfo?

    public init() {}
}
