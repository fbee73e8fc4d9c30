/// The schedule of a composed archive: which audio periods and which video frame are due at a given time on the
/// archive's clock.
///
/// Audio is cut into fixed periods (20 ms: one Opus packet each); period `k` starts at `k * audioPeriod` and is due
/// once the clock has reached that time. Video frame `j` is due at `j * frameInterval`. Each is handed out once, in
/// order, and its timestamp is its scheduled time, not the time it was made, so the file's timeline is exact even
/// when the composing thread runs late.
///
/// Running late: every audio period due is handed out (the audio track stays continuous) unless more than
/// ``maximumAudioCatchUp`` are due, in which case the oldest are skipped (a gap in the file; counted). Of several
/// video frames due only the newest is made; the others are skipped (counted): a late frame shows nothing new.
///
/// A pure value: no clock of its own, no I/O; the composer passes the elapsed time.
public struct CompositionClock: Hashable, Sendable {
    /// The length of one audio period.
    public let audioPeriod: Duration
    /// The time between two video frames (1 / frame rate).
    public let frameInterval: Duration
    /// The most audio periods handed out in one call; older due ones are skipped.
    public let maximumAudioCatchUp: Int

    /// The next audio period to hand out.
    public private(set) var nextAudioPeriod = 0
    /// The next video frame that can be handed out.
    public private(set) var nextVideoFrame = 0
    /// Audio periods skipped because the composer ran too late.
    public private(set) var audioPeriodsSkipped = 0
    /// Video frames skipped because the composer ran late.
    public private(set) var videoFramesSkipped = 0

    /// What is due at one call.
    public struct Due: Hashable, Sendable {
        /// Audio periods to make now, oldest first (period `k` starts at `k * audioPeriod`).
        public var audioPeriods: Range<Int>
        /// The video frame to make now, if any (frame `j` shows at `j * frameInterval`).
        public var videoFrame: Int?
    }

    /// A schedule of `framesPerSecond` video frames (1...120) and `audioPeriod` audio periods, starting at zero.
    public init(framesPerSecond: Int, audioPeriod: Duration = .milliseconds(20), maximumAudioCatchUp: Int = 25) {
        precondition((1...120).contains(framesPerSecond) && audioPeriod > .zero && maximumAudioCatchUp > 0)
        self.audioPeriod = audioPeriod
        frameInterval = .seconds(1) / framesPerSecond
        self.maximumAudioCatchUp = maximumAudioCatchUp
    }

    /// When audio period `k` starts.
    public func audioTime(_ period: Int) -> Duration { audioPeriod * period }

    /// When video frame `j` shows.
    public func videoTime(_ frame: Int) -> Duration { frameInterval * frame }

    /// Hands out what is due at `elapsed` (time since the archive's start) and has not been handed out yet.
    /// A time earlier than a previous call's hands out nothing.
    public mutating func due(at elapsed: Duration) -> Due {
        guard elapsed >= .zero else { return Due(audioPeriods: nextAudioPeriod..<nextAudioPeriod, videoFrame: nil) }
        // The last period (frame) whose start is not after `elapsed`.
        let lastAudio = Int(elapsed / audioPeriod)
        let lastVideo = Int(elapsed / frameInterval)
        var firstAudio = nextAudioPeriod
        if lastAudio - firstAudio + 1 > maximumAudioCatchUp {
            let skip = lastAudio - firstAudio + 1 - maximumAudioCatchUp
            audioPeriodsSkipped += skip
            firstAudio += skip
        }
        let audio = firstAudio..<max(firstAudio, lastAudio + 1)
        nextAudioPeriod = audio.upperBound
        var video: Int?
        if lastVideo >= nextVideoFrame {
            videoFramesSkipped += lastVideo - nextVideoFrame
            video = lastVideo
            nextVideoFrame = lastVideo + 1
        }
        return Due(audioPeriods: audio, videoFrame: video)
    }
}
