import Foundation
import TokKitICE
import TokKitPeer
import TokKitStreaming

/// A snapshot of a ``Subscriber``'s media: decoding (frame rate and bitrate over the last second, size, frames,
/// errors) and the RTP streams it arrives on (packets, loss, jitter, round-trip time).
///
/// Value type, usable from any thread. All zero before the media is negotiated.
public struct SubscriberStatistics: Sendable, Hashable {
    /// The VP8 video pipeline (`VideoReceiveStatistics.framesPerSecond`, `VideoReceiveStatistics.bitrate`,
    /// `VideoReceiveStatistics.width` × `VideoReceiveStatistics.height`, …).
    public var video: VideoReceiveStatistics
    /// The Opus audio pipeline.
    public var audio: AudioReceiveStatistics
    /// The video RTP stream.
    public var videoTrack: TrackStatistics
    /// The audio RTP stream.
    public var audioTrack: TrackStatistics
    /// The path the media takes: host, server-reflexive (through NAT) or relayed (TURN) ends; nil before ICE
    /// selected one.
    public var candidatePair: ICECandidatePair?

    /// When the snapshot was taken (seconds since 1970, as OpenTok's stats `timestamp`).
    public var timestamp: Double = Date().timeIntervalSince1970

    /// The share of audio packets lost since the media (re)started, 0...1.
    public var audioPacketLoss: Double { Self.lossShare(audioTrack) }
    /// The share of video packets lost since the media (re)started, 0...1.
    public var videoPacketLoss: Double { Self.lossShare(videoTrack) }

    /// The audio quality score, 1...4.5 (``NetworkQuality/audioScore(roundTripTime:packetLoss:)``). A receiver
    /// learns no round-trip time from RTCP (the sender does), so this counts loss only; the publisher's
    /// ``PublisherStatistics/Subscription/audioQualityScore`` includes the delay.
    public var audioQualityScore: Double {
        NetworkQuality.audioScore(roundTripTime: .zero, packetLoss: audioPacketLoss)
    }

    /// The video quality score, 0 or 1...5 (``NetworkQuality/videoScore(bitrate:width:height:)``), from the
    /// bitrate received over the last second at the size decoded.
    public var videoQualityScore: Double {
        NetworkQuality.videoScore(bitrate: video.bitrate, width: video.width, height: video.height)
    }

    private static func lossShare(_ track: TrackStatistics) -> Double {
        let lost = Double(max(track.packetsLost, 0)), total = lost + Double(track.packetsReceived)
        return total > 0 ? lost / total : 0
    }

    /// A snapshot of the given figures, all zero by default.
    public init(video: VideoReceiveStatistics = VideoReceiveStatistics(),
                audio: AudioReceiveStatistics = AudioReceiveStatistics(),
                videoTrack: TrackStatistics = TrackStatistics(), audioTrack: TrackStatistics = TrackStatistics(),
                candidatePair: ICECandidatePair? = nil) {
        self.candidatePair = candidatePair
        self.video = video
        self.audio = audio
        self.videoTrack = videoTrack
        self.audioTrack = audioTrack
    }
}
