import TokKitRTP
import TokKitRecording

/// Where one stream's audio and video go on a composed archive's timeline once its publisher's RTCP sender reports
/// are known: both placed by the sender's clock with one common delay, so that what was captured at the same
/// instant is mixed and shown at the same archive time (the principle individual archives follow through
/// ``SenderTimeAnchor``).
///
/// The anchor: audio RTP timestamp ``audioTimestamp`` is played at archive time ``archiveTime``. It is chosen
/// (``init(at:newestAudio:arrival:delay:)``) from the newest audio packet received: that packet's timestamp is
/// played `delay` after it arrived, so the audio has `delay` to cover the network's jitter. The sender's sound card
/// drifts against the archive's clock (browsers: tens of ppm), so the anchor then follows it slowly
/// (``follow(at:newestAudio:arrival:delay:)``, every period): when the newest packet's place drifts more than
/// ``driftBound`` from `delay` after its arrival, the anchor moves ``driftStep`` per period (a millisecond of audio
/// skipped or a millisecond of silence) until it is within ``settledBound`` again. From then on:
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

    /// How far (in 48 kHz ticks) the anchor may drift from the newest packet's arrival before it is moved: 30 ms,
    /// well above a period's arrival jitter, well within the common delay.
    static let driftBound: Int = 1_440
    /// Once moving, the anchor moves until it is this close (5 ms).
    static let settledBound: Int = 240
    /// How far the anchor moves per period while it follows the sender's clock: 1 ms, 48 ticks (100 ppm of drift is
    /// 0.1 ms per second, caught up in a fraction of the time it takes to build up).
    static let driftStep: Int = 48

    /// The archive time ``audioTimestamp`` plays at.
    let archiveTime: Duration
    /// The audio RTP timestamp played at ``archiveTime``.
    private(set) var audioTimestamp: UInt32
    /// Whether the anchor is being moved towards the newest packet's place (until within ``settledBound``).
    private(set) var following = false

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

    /// How many ticks the anchor plays ahead (positive: later audio) of where the newest audio packet (RTP
    /// `newestAudio`, arrived at `arrival`) puts it, for the period starting at `at`.
    func drift(at: Duration, newestAudio: UInt32, arrival: Duration, delay: Duration = Self.defaultDelay) -> Int {
        Self.samples(from: Self(at: at, newestAudio: newestAudio, arrival: arrival, delay: delay).audioTimestamp,
                     to: audioTimestamp(at: at))
    }

    /// Follows the sender's clock for the period starting at `at` (see the type's comment): moves the anchor by at
    /// most ``driftStep`` towards where the newest audio packet puts it, once it is more than ``driftBound`` away and
    /// until it is within ``settledBound``; returns the ticks moved (positive: audio skipped). A drift beyond
    /// ``maximumAlignment`` is left to the audio placement (which chooses the anchor again).
    @discardableResult
    mutating func follow(at: Duration, newestAudio: UInt32, arrival: Duration,
                         delay: Duration = Self.defaultDelay) -> Int {
        let drift = drift(at: at, newestAudio: newestAudio, arrival: arrival, delay: delay)
        guard abs(drift) <= Self.maximumAlignment else { return 0 }
        if abs(drift) > Self.driftBound { following = true }
        if following, abs(drift) <= Self.settledBound { following = false }
        guard following else { return 0 }
        let step = drift > 0 ? -min(drift, Self.driftStep) : min(-drift, Self.driftStep)
        audioTimestamp &+= UInt32(bitPattern: Int32(step))
        return step
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
