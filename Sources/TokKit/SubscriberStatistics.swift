import TokKitICE
import TokKitPeer
import TokKitStreaming

/// A snapshot of a ``Subscriber``'s media: decoding (frame rate and bitrate over the last second, size, frames,
/// errors) and the RTP streams it arrives on (packets, loss, jitter, round-trip time).
///
/// Value type, usable from any thread. All zero before the media is negotiated.
public struct SubscriberStatistics: Sendable, Hashable {
    /// The VP8 video pipeline (``VideoReceiveStatistics/framesPerSecond``, ``VideoReceiveStatistics/bitrate``,
    /// ``VideoReceiveStatistics/width`` × ``VideoReceiveStatistics/height``, …).
    public var video: VideoReceiveStatistics
    /// The Opus audio pipeline.
    public var audio: AudioReceiveStatistics
    /// The video RTP stream.
    public var videoTrack: TrackStatistics
    /// The audio RTP stream.
    public var audioTrack: TrackStatistics
    /// The path the media takes: host, server-reflexive (through NAT) or relayed (TURN) ends; nil before ICE
    /// selected one.
    public var candidatePair: IceCandidatePair?

    public init(video: VideoReceiveStatistics = VideoReceiveStatistics(),
                audio: AudioReceiveStatistics = AudioReceiveStatistics(),
                videoTrack: TrackStatistics = TrackStatistics(), audioTrack: TrackStatistics = TrackStatistics(),
                candidatePair: IceCandidatePair? = nil) {
        self.candidatePair = candidatePair
        self.video = video
        self.audio = audio
        self.videoTrack = videoTrack
        self.audioTrack = audioTrack
    }
}
