import TokKitRTP

/// The pure core of a per-stream recorder: maps one RTP stream's timestamps onto the archive's timeline and
/// decides, frame by frame, what may be written.
///
/// The first frame seen (admitted or not) anchors the stream: its RTP timestamp is placed at ``startOffset`` (the time since the
/// archive started at which the stream's first packet arrived, given by the caller). Every later timestamp is
/// unwrapped to 64 bits (32-bit wraparound, reordering up to half the range) and placed at
/// `startOffset + (timestamp - first) / clockRate`, in whole milliseconds (rounded down).
///
/// A frame is written only when its time is after the previous written frame's (a repeat or an older one is a
/// duplicate or a late packet: dropped and counted), and, for video, only from the first key frame on.
///
/// A correction (``follow(correction:)``) moves the placement towards a later mapping of the sender's clock (its
/// newer RTCP sender reports, ``SenderClockFollower``) without a jump: each written frame takes at most
/// 1/``correctionSlewDivisor`` of the media time since the previous written frame towards it (1 %: 8 ms take
/// 0.8 s of media), so written times stay in order (a frame at least 10 ms after the previous one is still placed
/// at least 9.9 ms after it) and a player hears no gap or overlap beyond that. A plain value: no clock, no I/O, no
/// locks; tested alone.
public struct StreamTimeline: Hashable, Sendable {
    /// What ``admit(rtpTimestamp:isKeyFrame:)`` decided.
    public enum Decision: Hashable, Sendable {
        /// Write the frame at this time on the archive's timeline.
        case write(at: Duration)
        /// Drop the frame.
        case drop(DropReason)
    }

    /// Why a frame is dropped.
    public enum DropReason: Hashable, Sendable {
        /// A video delta frame before the stream's first key frame.
        case waitingForKeyFrame
        /// Not after the previous written frame (a duplicate, a late packet, or a timestamp that went back).
        case notAfterPrevious
        /// Placed after the instant recording was asked to stop (``stop(at:)``): captured once the archive ended.
        case afterStop
    }

    /// Running counts.
    public struct Counters: Hashable, Sendable {
        /// Frames admitted for writing.
        public var admitted = 0
        /// Delta frames dropped before the first key frame.
        public var droppedWaitingForKeyFrame = 0
        /// Frames dropped because their time was not after the previous one's.
        public var droppedNotAfterPrevious = 0
        /// Frames dropped because they were placed after the stop instant.
        public var droppedAfterStop = 0
        /// A counters value with nothing counted.
        public init() {}
    }

    /// RTP clock rate of the stream: 90000 for video, 48000 for Opus.
    public let clockRate: Int
    /// Where the stream's first frame sits on the archive's timeline.
    public let startOffset: Duration
    /// Whether frames wait for a key frame (video).
    public let waitsForKeyFrame: Bool
    /// Counts so far.
    public private(set) var counters = Counters()
    /// The archive time recording was asked to stop at (``stop(at:)``); frames placed after it are dropped.
    public private(set) var end: Duration?
    /// The correction the placement moves towards (``follow(correction:)``).
    public private(set) var correctionTarget: Duration = .zero
    /// The correction applied to the last frame written: moves towards ``correctionTarget`` at the bounded rate.
    public private(set) var correction: Duration = .zero
    /// A written frame moves the correction by at most 1/this of the media time since the previous written frame.
    public static let correctionSlewDivisor: Int64 = 100
    private var unwrapper = TimestampUnwrapper()
    private var first: Int64?
    private var lastWritten: Int64?
    private var sawKeyFrame = false

    /// A timeline for a stream whose first frame is at `startOffset` on the archive's timeline.
    public init(clockRate: Int, startOffset: Duration, waitsForKeyFrame: Bool) {
        precondition(clockRate > 0, "RTP clock rate must be positive")
        self.clockRate = clockRate
        self.startOffset = startOffset
        self.waitsForKeyFrame = waitsForKeyFrame
    }

    /// A video timeline (90 kHz, waits for a key frame).
    public static func video(startOffset: Duration) -> StreamTimeline {
        StreamTimeline(clockRate: 90_000, startOffset: startOffset, waitsForKeyFrame: true)
    }

    /// An Opus timeline (48 kHz).
    public static func opus(startOffset: Duration) -> StreamTimeline {
        StreamTimeline(clockRate: 48_000, startOffset: startOffset, waitsForKeyFrame: false)
    }

    /// Anchors the stream at `rtpTimestamp` unless it is anchored already: a recorder calls it with every packet's
    /// timestamp, so that the stream's first packet (not its first complete frame, which for video may come much
    /// later, after the wait for a key frame) sits at ``startOffset``.
    public mutating func anchor(rtpTimestamp: UInt32) {
        guard first == nil else { return }
        first = unwrapper.unwrap(rtpTimestamp)
    }

    /// The archive time of `rtpTimestamp` without admitting anything (the first call anchors the stream).
    public mutating func time(of rtpTimestamp: UInt32) -> Duration {
        let extended = unwrapper.unwrap(rtpTimestamp)
        if first == nil { first = extended }
        return time(extended: extended)
    }

    /// Recording was asked to stop at `end` on the archive's timeline: from now on, a frame placed after it is
    /// dropped (``DropReason/afterStop``), whenever it arrives (packets keep coming while the archive unsubscribes
    /// and closes). A second call keeps the earlier end.
    public mutating func stop(at end: Duration) {
        self.end = min(self.end ?? end, end)
    }

    /// Moves later frames by `correction` (added to their RTP-time placement), reached gradually: see the type's
    /// comment. The caller bounds it (``SenderClockFollower/maximumShift``); it is clamped to ±60 s here (so no
    /// sum overflows). The latest call counts.
    public mutating func follow(correction: Duration) {
        correctionTarget = min(max(correction, .seconds(-60)), .seconds(60))
    }

    /// Decides about one frame: its RTP timestamp and, for video, whether it is a key frame.
    public mutating func admit(rtpTimestamp: UInt32, isKeyFrame: Bool) -> Decision {
        let extended = unwrapper.unwrap(rtpTimestamp)
        if first == nil { first = extended }
        if waitsForKeyFrame && !sawKeyFrame && !isKeyFrame {
            counters.droppedWaitingForKeyFrame += 1
            return .drop(.waitingForKeyFrame)
        }
        if let lastWritten, extended <= lastWritten {
            counters.droppedNotAfterPrevious += 1
            return .drop(.notAfterPrevious)
        }
        let stepped = steppedCorrection(to: extended)
        let at = time(extended: extended, correction: stepped)
        if let end, at > end {
            counters.droppedAfterStop += 1
            return .drop(.afterStop)
        }
        if isKeyFrame { sawKeyFrame = true }
        correction = stepped
        lastWritten = extended
        counters.admitted += 1
        return .write(at: at)
    }

    /// The correction a frame at `extended` gets: the last one moved towards the target by at most the slew the
    /// media time since the last written frame allows (none before the first frame: it starts at the target's
    /// value only if nothing was written yet).
    private func steppedCorrection(to extended: Int64) -> Duration {
        guard correction != correctionTarget else { return correction }
        guard let lastWritten else { return correctionTarget }
        let rate = Int64(clockRate)
        // Media time since the last written frame, in nanoseconds, capped at 100 s (so no product overflows).
        let elapsedTicks = min(max(0, extended &- lastWritten), rate * 100)
        let allowed = Duration.nanoseconds(elapsedTicks * 1_000_000_000 / rate / Self.correctionSlewDivisor)
        let gap = correctionTarget - correction
        if gap > .zero { return correction + min(gap, allowed) }
        return correction - min(.zero - gap, allowed)
    }

    private func time(extended: Int64, correction: Duration? = nil) -> Duration {
        let ticks = extended &- (first ?? extended)
        // Whole seconds and the rest apart, so that no product overflows however far a remote stream's timestamps
        // were pushed (the unwrapper moves up to 2^31 ticks a packet); floor division for the rest, so a timestamp
        // before the first one maps before the start offset. The correction (bounded by the caller, well under a
        // second in practice) is added to the sub-second part in nanoseconds and the sum floored to milliseconds.
        let rate = Int64(clockRate)
        let (seconds, rest) = ticks.quotientAndRemainder(dividingBy: rate)
        let part = rest * 1_000_000_000
        var nanoseconds = part >= 0 ? part / rate : (part - (rate - 1)) / rate
        let shift = (correction ?? self.correction).components
        nanoseconds += shift.seconds * 1_000_000_000 + shift.attoseconds / 1_000_000_000
        let (carry, within) = Self.floorDivision(nanoseconds, 1_000_000_000)
        let milliseconds = (seconds + carry) * 1000 + within / 1_000_000
        return startOffset + .milliseconds(milliseconds)
    }

    /// Quotient and remainder with the quotient rounded down (the remainder in 0..<divisor).
    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let (q, r) = value.quotientAndRemainder(dividingBy: divisor)
        return r < 0 ? (q - 1, r + divisor) : (q, r)
    }
}
