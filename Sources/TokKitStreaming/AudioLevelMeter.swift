import Glibc
import Synchronization
import TokKitMedia

/// The level of one audio stream as the SDK reports it (`audioLevelUpdated`: 0 silent ... 1 full scale): the peak
/// absolute sample of each period over full scale, held and falling off by half every ``halfLife`` once the
/// sound stops, like a level meter's needle.
///
/// One audio thread records (``record(_:)``: one pass over the period's samples, nothing allocated); any thread
/// reads ``level`` without locking. The fall-off is computed when read, from the time of the last record, so a
/// stream that stops being recorded (muted, unsubscribed) reads as silent after a moment.
public final class AudioLevelMeter: Sendable {
    /// How long the level takes to halve once the sound stops.
    public static let halfLife = Duration.milliseconds(50)
    /// ``halfLife`` in milliseconds, computed once (dividing `Duration`s goes through 128-bit arithmetic).
    private static let halfLifeMilliseconds = Float(halfLife / .milliseconds(1))

    /// The last recorded level (Float bits, high half) and when it was recorded (milliseconds on the monotonic
    /// clock, low half, wrapping): one word, so a reader never sees one without the other.
    private let state = Atomic<UInt64>(0)

    public init() {}

    /// Records one period of samples (any channel count, interleaved), on the audio thread.
    public func record(_ samples: UnsafeBufferPointer<Int16>) {
        record(samples, at: MonotonicClock.now())
    }

    /// The level now, 0...1.
    public var level: Float { level(at: MonotonicClock.now()) }

    func record(_ samples: UnsafeBufferPointer<Int16>, at now: Duration) {
        var peak: Int32 = 0
        for s in samples { peak = max(peak, abs(Int32(s))) }
        let level = max(Float(min(peak, 32_767)) / 32_767, self.level(at: now))
        state.store(UInt64(level.bitPattern) << 32 | UInt64(Self.milliseconds(now)), ordering: .relaxed)
    }

    /// The level as last recorded, before any fall-off (for tests, which cannot know how long ago that was).
    var recorded: Float { Float(bitPattern: UInt32(truncatingIfNeeded: state.load(ordering: .relaxed) >> 32)) }

    func level(at now: Duration) -> Float {
        let word = state.load(ordering: .relaxed)
        let recorded = Float(bitPattern: UInt32(truncatingIfNeeded: word >> 32))
        guard recorded > 0 else { return 0 }
        let elapsed = Int32(bitPattern: Self.milliseconds(now) &- UInt32(truncatingIfNeeded: word))
        // A reader that took the time just before the record sees the record as new; further back is a record
        // older than the clock's 32-bit wrap: silence.
        guard elapsed > -1_000 else { return 0 }
        let halfLives = Float(max(elapsed, 0)) / Self.halfLifeMilliseconds
        // Below 1/4096 of full scale (-72 dB) counts as silence.
        guard halfLives < 12 else { return 0 }
        return recorded * exp2f(-halfLives)
    }

    private static func milliseconds(_ time: Duration) -> UInt32 {
        UInt32(truncatingIfNeeded: time.nanoseconds / 1_000_000)
    }
}
