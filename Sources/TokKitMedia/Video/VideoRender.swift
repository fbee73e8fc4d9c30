/// Shows (or stores, or analyses) decoded video, as the SDK's `OTVideoRender`.
///
/// A publisher calls it with its own preview frames, a subscriber with decoded frames, always from one media
/// thread at a time (never the main thread). The frame may be borrowed: copy it with
/// ``VideoFrame/copy(using:)`` to keep it after returning (reading a borrowed frame after the call throws
/// ``VideoFrameError/expired``). Return quickly; a slow renderer delays the pipeline
/// behind it, which then drops frames (newest frame wins).
public protocol VideoRender: AnyObject, Sendable {
    /// One frame to show, I420 and upright. Called on a media thread, one frame at a time; the frame's memory may
    /// be borrowed and valid only until this returns.
    func renderVideoFrame(_ frame: VideoFrame)
}
