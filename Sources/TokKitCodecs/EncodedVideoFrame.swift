/// One compressed VP8 frame as ``VP8Encoder`` produced it, handed to the `body` of
/// ``VP8Encoder/encode(_:forceKeyframe:_:)``.
///
/// ``bytes`` points straight into libvpx's output packet (no copy): it is valid only inside that `body` call.
/// Packetize or copy it there; never keep the pointer.
public struct EncodedVideoFrame {
    /// The VP8 bitstream of one frame (RFC 6386), ready for the RFC 7741 packetizer.
    public let bytes: UnsafeRawBufferPointer
    /// Whether the frame is a keyframe (decodable on its own).
    public let isKeyframe: Bool
    /// Picture size the frame decodes to.
    public let width: Int
    public let height: Int
    /// Capture time of the source frame on the monotonic clock (``TokKitMedia/MonotonicClock``).
    public let timestamp: Duration

    /// The frame's temporal layer (TID) when the encoder makes temporal layers, else nil.
    public let temporalLayer: UInt8?
    /// The frame reads only layer-0 frames since the last layer-0 frame (the VP8 descriptor's Y bit).
    public let layerSync: Bool
    /// The quantizer the frame was encoded at, on libvpx's 0...63 rate-control scale (the one
    /// ``VP8Encoder/maximumQuantizer`` is on), when the encoder reported it.
    public let quantizer: Int?

    public init(bytes: UnsafeRawBufferPointer, isKeyframe: Bool, width: Int, height: Int, timestamp: Duration,
                temporalLayer: UInt8? = nil, layerSync: Bool = false, quantizer: Int? = nil) {
        self.bytes = bytes
        self.quantizer = quantizer
        self.temporalLayer = temporalLayer
        self.layerSync = layerSync
        self.isKeyframe = isKeyframe
        self.width = width
        self.height = height
        self.timestamp = timestamp
    }
}
