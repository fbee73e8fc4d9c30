import TokKitPeer
import TokKitRTP

/// Lip sync for one subscribed stream: how much extra delay the audio needs to play in step with the video, from
/// the two streams' RTCP sender reports (RFC 3550 §6.4.1: both streams of a publisher map their RTP timestamps to
/// one NTP clock), as libwebrtc's stream synchronizer does it in a simpler form.
///
/// Each ``update(audio:video:audioReport:videoReport:)`` takes what each stream played last (its RTP timestamp and
/// when it played, on any one local monotonic clock) and the last sender report of each. A stream's *offset* is when
/// it played a sample minus when the sender captured it (sender NTP time through its report): the unknown clock
/// difference between the two machines is the same for both streams, so `video offset − audio offset` is how much
/// later the video plays what was captured at the same instant: the audio's extra delay should grow by that much.
/// The audio only ever waits for the video (the video's playout delay is what protects it from loss and repairs;
/// a video behind by less than the audio's own jitter buffer is left alone), within ``Configuration/maximumDelay``.
/// Moves are smooth: the lag is the median of the last ``Configuration/window`` measurements, the delay moves in
/// ``Configuration/step`` units and by at most ``Configuration/maximumChange`` per update, and a lag within
/// ``Configuration/deadBand`` of the delay in use changes nothing.
///
/// A pure value with injected times; not thread-safe; an update (twice a second) sorts a copy of the window.
public struct AudioVideoSync: Sendable {
    public struct Configuration: Hashable, Sendable {
        /// The largest extra audio delay.
        public var maximumDelay: Duration
        /// The delay's unit (the audio packet duration: the jitter buffer adds or removes whole packets).
        public var step: Duration
        /// The most the delay changes in one update.
        public var maximumChange: Duration
        /// A lag this close to the delay in use leaves it.
        public var deadBand: Duration
        /// Measurements the lag is the median of.
        public var window: Int
        /// What played longer ago than this (a paused or disabled stream) is not measured.
        public var staleness: Duration

        public init(maximumDelay: Duration = .milliseconds(400), step: Duration = .milliseconds(20),
                    maximumChange: Duration = .milliseconds(40), deadBand: Duration = .milliseconds(15),
                    window: Int = 5, staleness: Duration = .seconds(1)) {
            self.maximumDelay = maximumDelay
            self.step = step
            self.maximumChange = maximumChange
            self.deadBand = deadBand
            self.window = window
            self.staleness = staleness
        }
    }

    /// What one stream played last: an RTP timestamp of its clock and when it played (local monotonic clock).
    public struct Playout: Hashable, Sendable {
        public var rtpTimestamp: UInt32
        public var playedAt: Duration
        public init(rtpTimestamp: UInt32, playedAt: Duration) {
            self.rtpTimestamp = rtpTimestamp
            self.playedAt = playedAt
        }
    }

    public let configuration: Configuration
    /// The extra audio delay in use (a multiple of ``Configuration/step``).
    public private(set) var delay: Duration = .zero
    /// The last lag measured (video behind audio, positive; before the extra delay was taken off), nil before one.
    public private(set) var lastLag: Duration?
    private var lags: [Duration]
    private var lagCount = 0
    private var lagNext = 0
    private let audioRate: Int
    private let videoRate: Int

    public init(_ configuration: Configuration = Configuration(), audioClockRate: Int = 48_000,
                videoClockRate: Int = 90_000) {
        self.configuration = configuration
        lags = Array(repeating: .zero, count: max(1, configuration.window))
        audioRate = max(1, audioClockRate)
        videoRate = max(1, videoClockRate)
    }

    /// Takes one measurement at local time `now`; returns the new extra audio delay when it changed. Nothing
    /// changes while the audio has not played recently or a report is missing; while the video has not (for longer
    /// than ``Configuration/staleness``), the delay goes back to zero by ``Configuration/maximumChange`` an update.
    public mutating func update(audio: Playout?, video: Playout?, audioReport: RemoteSenderReport?,
                                videoReport: RemoteSenderReport?, now: Duration) -> Duration? {
        guard let audio, now - audio.playedAt <= configuration.staleness else { return nil }
        guard let video, now - video.playedAt <= configuration.staleness else {
            // The audio plays, the video does not (turned off, frozen, gone): the audio stops waiting for it, as
            // gradually as it started; the measurements are forgotten (they were of the video before).
            lagCount = 0
            guard delay > .zero else { return nil }
            let step = max(configuration.step, .microseconds(1))
            let steps = max(1, Int((configuration.maximumChange / step).rounded(.down)))
            delay = max(.zero, delay - step * steps)
            return delay
        }
        guard let audioReport, let videoReport else { return nil }
        let audioOffset = audio.playedAt - Self.captureTime(audio.rtpTimestamp, audioReport, rate: audioRate)
        let videoOffset = video.playedAt - Self.captureTime(video.rtpTimestamp, videoReport, rate: videoRate)
        // How much later the video plays than the audio would without the extra delay.
        let lag = videoOffset - (audioOffset - delay)
        lastLag = lag
        lags[lagNext] = lag
        lagNext = (lagNext + 1) % lags.count
        lagCount = min(lagCount + 1, lags.count)
        let median = lags[0..<lagCount].sorted()[lagCount / 2]
        let step = max(configuration.step, .microseconds(1))
        let wanted = min(max(median, .zero), configuration.maximumDelay)
        let difference = wanted - delay
        guard difference > configuration.deadBand || difference < .zero - configuration.deadBand else { return nil }
        let change = min(max(difference, .zero - configuration.maximumChange), configuration.maximumChange)
        // Whole steps, the nearest to the change (at least one, the lag being past the dead band).
        let steps = Int((change / step).rounded(.toNearestOrAwayFromZero))
        let next = min(max(delay + step * (steps == 0 ? (change > .zero ? 1 : -1) : steps), .zero),
                       configuration.maximumDelay)
        guard next != delay else { return nil }
        delay = next
        return next
    }

    /// Forgets the measurements and the delay (a new connection, the sender restarted).
    public mutating func reset() {
        delay = .zero
        lastLag = nil
        lagCount = 0
        lagNext = 0
    }

    /// The sender's NTP time of RTP timestamp `rtp` through `report`, as a duration since the NTP epoch (only
    /// differences between streams of one sender mean anything).
    static func captureTime(_ rtp: UInt32, _ report: RemoteSenderReport, rate: Int) -> Duration {
        .nanoseconds(SenderClock(ntp: report.ntp, rtpTimestamp: report.rtpTimestamp, clockRate: rate).senderTime(of: rtp))
    }
}
