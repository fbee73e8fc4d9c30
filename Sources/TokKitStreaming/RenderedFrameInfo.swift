/// What a ``VideoReceivePipeline`` reports for each frame it renders, for latency measurement.
///
/// Capture-to-render latency in one process: `renderedAt - sender.clockMapping.time(of: rtpTimestamp,
/// near: renderedAt)`. Value type, usable from any thread.
public struct RenderedFrameInfo: Hashable, Sendable {
    /// The frame's RTP timestamp (90 kHz, the sender's ``RTPClockMapping``).
    public var rtpTimestamp: UInt32
    /// When its last packet arrived (``TokKitMedia/MonotonicClock``).
    public var receivedAt: Duration
    /// When the renderer returned.
    public var renderedAt: Duration
    /// Whether it was a keyframe.
    public var isKeyframe: Bool
    /// When it was due (``VideoPlayoutTiming``: its expected time plus the playout delay in use): earlier than
    /// ``renderedAt`` for a frame that completed late (lip sync follows this, not each late frame).
    public var scheduledAt: Duration

    public init(rtpTimestamp: UInt32, receivedAt: Duration, renderedAt: Duration, isKeyframe: Bool,
                scheduledAt: Duration? = nil) {
        self.rtpTimestamp = rtpTimestamp
        self.receivedAt = receivedAt
        self.renderedAt = renderedAt
        self.isKeyframe = isKeyframe
        self.scheduledAt = scheduledAt ?? renderedAt
    }
}
