/// The data-plane half of a capturer driven by a ``PeriodicThread`` through a ``PacedCapture``: what the thread
/// does on each tick.
///
/// The thread holds the source, never the capturer, so dropping a capturer stops its thread.
public protocol PacedFrameSource: Sendable {
    /// Called on the capture thread once per tick: hands at most one frame to `consumer` (borrowed: the consumer
    /// copies or converts it before returning) and says what happened. ``PacedFrameResult/ended`` ends the thread
    /// (end of the source, released, no consumer, or a failure already reported to the consumer).
    func deliverFrame(to consumer: (any VideoCaptureConsumer)?) -> PacedFrameResult

    /// Frees what the source holds (buffers, files). Called on the control thread when no capture thread uses it.
    func free()
}

/// What one tick of a ``PacedFrameSource`` did.
public enum PacedFrameResult: Sendable {
    /// A frame was handed to the consumer (counted in ``PacedCapture/framesDelivered``).
    case delivered
    /// Nothing this tick (no buffer free, or the tick fell in the previous frame's slot); the thread goes on.
    case skipped
    /// The source is done: the thread ends.
    case ended
}
