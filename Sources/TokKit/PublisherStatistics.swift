import TokKitStreaming

/// A snapshot of a ``Publisher``'s media: what its encoders did, once for all subscribers (frame rate and
/// bitrate over the last second, frames, keyframes, packets sent summed over subscribers).
///
/// Value type, usable from any thread. All zero while not published.
public struct PublisherStatistics: Sendable, Hashable {
    /// The VP8 video pipeline (``VideoSendStatistics/framesPerSecond``, ``VideoSendStatistics/bitrate``, …).
    public var video: VideoSendStatistics
    /// The Opus audio pipeline.
    public var audio: AudioSendStatistics

    public init(video: VideoSendStatistics = VideoSendStatistics(), audio: AudioSendStatistics = AudioSendStatistics()) {
        self.video = video
        self.audio = audio
    }
}
