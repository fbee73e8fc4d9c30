import Foundation
import TokKitICE
import TokKitPeer
import TokKitStreaming

/// A snapshot of a ``Publisher``'s media: what its encoders did, once for all subscribers (frame rate and
/// bitrate over the last second, frames, keyframes, packets sent summed over subscribers), and each
/// subscription's network statistics (OpenTok's publisher network stats, one per subscriber).
///
/// Value type, usable from any thread. All zero while not published.
public struct PublisherStatistics: Sendable, Hashable {
    /// One subscription's RTP streams as the publisher sees them: packets and bytes sent, what the subscriber
    /// reports lost, its jitter, the round-trip time (from its reception reports), and the path.
    public struct Subscription: Sendable, Hashable {
        /// The server's id of the subscription.
        public var subscriberID: SubscriberID
        /// The subscriber's connection.
        public var connectionID: ConnectionID
        /// The video RTP stream sent to this subscriber, with what its receiver reports.
        public var videoTrack: TrackStatistics
        /// The audio RTP stream sent to this subscriber, with what its receiver reports.
        public var audioTrack: TrackStatistics
        /// The ICE candidate pair media goes over, once one is selected.
        public var candidatePair: ICECandidatePair?

        /// One subscription's figures; the publisher builds these, tests may too.
        public init(subscriberID: SubscriberID, connectionID: ConnectionID, videoTrack: TrackStatistics,
                    audioTrack: TrackStatistics, candidatePair: ICECandidatePair?) {
            self.subscriberID = subscriberID
            self.connectionID = connectionID
            self.videoTrack = videoTrack
            self.audioTrack = audioTrack
            self.candidatePair = candidatePair
        }

        /// The audio quality score (1...4.5, ``NetworkQuality/audioScore(roundTripTime:packetLoss:)``) from the
        /// round-trip time and the loss the subscriber last reported.
        public var audioQualityScore: Double {
            NetworkQuality.audioScore(roundTripTime: audioTrack.roundTripTime ?? videoTrack.roundTripTime ?? .zero,
                                      packetLoss: audioTrack.remoteFractionLost)
        }
    }

    /// The VP8 video pipeline (`VideoSendStatistics.framesPerSecond`, `VideoSendStatistics.bitrate`, …).
    public var video: VideoSendStatistics
    /// The Opus audio pipeline.
    public var audio: AudioSendStatistics
    /// Every subscription being sent to, by subscriber id.
    public var subscriptions: [Subscription]
    /// When the snapshot was taken (seconds since 1970, as OpenTok's stats `timestamp`).
    public var timestamp: Double

    /// A snapshot of the given figures, all zero by default, taken now.
    public init(video: VideoSendStatistics = VideoSendStatistics(), audio: AudioSendStatistics = AudioSendStatistics(),
                subscriptions: [Subscription] = [], timestamp: Double = Date().timeIntervalSince1970) {
        self.video = video
        self.audio = audio
        self.subscriptions = subscriptions
        self.timestamp = timestamp
    }
}
