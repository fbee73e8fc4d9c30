import TokKitRecording

/// Where one stream's audio and video go on a composed archive's timeline once its publisher's RTCP sender reports
/// are known: both placed by the sender's clock with one common delay, so that what was captured at the same
/// instant is mixed and shown at the same archive time (the principle individual archives follow through
/// ``SenderTimeAnchor``).
///
/// The anchor: audio RTP timestamp ``audioTimestamp`` is played at archive time ``archiveTime``. It is chosen once
/// (``init(at:newestAudio:arrival:delay:)``) from the newest audio packet received: that packet's timestamp is
/// played `delay` after it arrived, so the audio has `delay` to cover the network's jitter. From then on:
/// - the audio period starting at archive time `t` plays the samples from ``audioTimestamp(at:)`` on (48 kHz), so
///   audio keeps its place by its RTP timestamps: a lost or late packet becomes a gap (concealed), never a push back;
/// - a picture of video RTP timestamp `v` is due at ``videoTime(of:audio:video:)``: the anchor's sender time
///   (through the audio stream's sender report) carried over to the video stream's (through its own report).
///
/// A plain value: no clock, no I/O; tested alone with hand-worked values.
struct ComposedSync: Hashable, Sendable {
    /// Audio RTP clock rate (Opus).
    static let audioClockRate: Int64 = 48_000
    /// How long after its arrival the newest audio packet is played, by default: 20 ms of packet plus 60 ms for the
    /// network's (and a loaded machine's) jitter.
    static let defaultDelay: Duration = .milliseconds(80)
    /// A chunk of decoded audio more than this far from where it should play (a sender restart, a clock jump) is
    /// not aligned sample by sample: the anchor is chosen again.
    static let maximumAlignment: Int = 48_000

    /// The furthest a picture is moved from its arrival by the sender reports.
    static let maximumPictureShift: Duration = .seconds(1)

    /// The archive time ``audioTimestamp`` plays at.
    let archiveTime: Duration
    /// The audio RTP timestamp played at ``archiveTime``.
    let audioTimestamp: UInt32

    /// An anchor given directly.
    init(archiveTime: Duration, audioTimestamp: UInt32) {
        self.archiveTime = archiveTime
        self.audioTimestamp = audioTimestamp
    }

    /// The anchor for the audio period starting at `at`, when the newest audio packet received has RTP timestamp
    /// `newestAudio` and arrived at `arrival` (both on the archive's timeline): `newestAudio` plays at
    /// `arrival + delay`.
    init(at: Duration, newestAudio: UInt32, arrival: Duration, delay: Duration = Self.defaultDelay) {
        archiveTime = at
        audioTimestamp = newestAudio &+ UInt32(truncatingIfNeeded: Self.ticks(at - (arrival + delay)))
    }

    /// The audio RTP timestamp of the first sample of the period starting at archive time `at`.
    func audioTimestamp(at: Duration) -> UInt32 {
        audioTimestamp &+ UInt32(truncatingIfNeeded: Self.ticks(at - archiveTime))
    }

    /// Where a picture of video RTP timestamp `timestamp` is due on the archive's timeline, `audio` and `video`
    /// mapping the two streams' timestamps to the sender's clock (their latest sender reports).
    func videoTime(of timestamp: UInt32, audio: SenderClock, video: SenderClock) -> Duration {
        SenderTimeAnchor(offset: archiveTime, timestamp: audioTimestamp, clock: audio).offset(of: timestamp, on: video)
    }

    /// Where a picture of video RTP timestamp `timestamp`, decoded at `arrival` on the archive's timeline, is
    /// shown: at ``videoTime(of:audio:video:)``, unless that is more than ``maximumPictureShift`` from its arrival
    /// (reports that do not fit the stream: a restarted sender, a clock jump), then at its arrival.
    func pictureTime(of timestamp: UInt32, arrival: Duration, audio: SenderClock, video: SenderClock) -> Duration {
        let due = videoTime(of: timestamp, audio: audio, video: video)
        let shift = due - arrival
        return shift > Self.maximumPictureShift || shift < .zero - Self.maximumPictureShift ? arrival : due
    }

    /// How many samples a chunk of decoded audio starting at RTP timestamp `chunk` begins after `wanted` (negative:
    /// before it, the samples to skip), within ±2³¹ ticks.
    static func samples(from wanted: UInt32, to chunk: UInt32) -> Int {
        Int(Int32(bitPattern: chunk &- wanted))
    }

    /// `duration` in 48 kHz ticks, rounded down (towards minus infinity).
    static func ticks(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        // attoseconds is in (-10¹⁸, 10¹⁸) with the sign of the duration; 48000 × 10¹⁸ overflows, so go through
        // nanoseconds first (floor).
        let nanoseconds = attoseconds >= 0 ? attoseconds / 1_000_000_000 : (attoseconds - 999_999_999) / 1_000_000_000
        let scaled = nanoseconds * audioClockRate
        let fraction = scaled >= 0 ? scaled / 1_000_000_000 : (scaled - 999_999_999) / 1_000_000_000
        return seconds * audioClockRate + fraction
    }
}
