import TokKitMedia

/// When a flash-and-beep source (``FlashBeepCapturer`` and ``FlashBeepAudioDevice``) flashes and beeps: the shared
/// capture clock both read, so that a recording or a receiver can measure audio/video synchronisation by comparing
/// where each flash and its beep ended up.
///
/// Time is cut into video frame slots of `1 / framesPerSecond` from ``origin`` (a ``MonotonicClock`` time): slot
/// `n` starts at ``frameTime(_:)`` `n`. Slots `n ≥ 0` with `n % framesPerFlash < flashFrames` are flash slots: the
/// capturer shows white in the frame it stamps with that slot's start, and the audio device beeps for every sample
/// captured inside such a slot. So the first white frame of a flash and the first sample of its beep are captured
/// at the same instant, exactly (no rounding to a frame or to an audio period), and a flash lasts as long as its
/// beep. Before ``origin`` nothing flashes or beeps.
///
/// A plain value, no clock read: tested alone.
public struct FlashBeepSchedule: Hashable, Sendable {
    /// The start of the first flash (slot 0), in ``MonotonicClock`` time.
    public let origin: Duration
    /// Video frame slots per second.
    public let framesPerSecond: Int
    /// Slots from one flash's start to the next one's.
    public let framesPerFlash: Int
    /// Slots each flash lasts.
    public let flashFrames: Int

    /// A schedule whose first flash starts at `origin`, then one every `framesPerFlash` slots of
    /// `1 / framesPerSecond` s, each `flashFrames` slots long (by default a 100 ms flash every second at 30 fps).
    public init(origin: Duration, framesPerSecond: Int = 30, framesPerFlash: Int = 30, flashFrames: Int = 3) {
        precondition(framesPerSecond > 0 && framesPerFlash > 0 && (1..<framesPerFlash).contains(flashFrames),
                     "a positive rate, and a flash shorter than the time between flashes")
        self.origin = origin
        self.framesPerSecond = framesPerSecond
        self.framesPerFlash = framesPerFlash
        self.flashFrames = flashFrames
    }

    /// The time between two flashes' starts.
    public var interval: Duration { .nanoseconds(Int64(framesPerFlash) * 1_000_000_000 / Int64(framesPerSecond)) }
    /// How long a flash (and its beep) lasts.
    public var flashLength: Duration { frameTime(flashFrames) - origin }

    /// The slot that `time` falls in (negative before ``origin``).
    public func frame(at time: Duration) -> Int {
        let elapsed = (time - origin).nanoseconds
        // Nanoseconds × rate stays far below 2⁶³ (years of elapsed time); division rounded down before the origin.
        let (quotient, remainder) = (elapsed * Int64(framesPerSecond)).quotientAndRemainder(dividingBy: 1_000_000_000)
        return Int(remainder < 0 ? quotient - 1 : quotient)
    }

    /// The start of slot `frame`: its first whole nanosecond (rounded up, so that ``frame(at:)`` of it is `frame`).
    public func frameTime(_ frame: Int) -> Duration {
        let (quotient, remainder) = (Int64(frame) * 1_000_000_000).quotientAndRemainder(dividingBy: Int64(framesPerSecond))
        return origin + .nanoseconds(remainder > 0 ? quotient + 1 : quotient)
    }

    /// Whether slot `frame` is part of a flash.
    public func isFlash(frame: Int) -> Bool { frame >= 0 && frame % framesPerFlash < flashFrames }

    /// Whether a sample captured at `time` is part of a beep.
    public func isBeeping(at time: Duration) -> Bool { isFlash(frame: frame(at: time)) }

    /// The start of flash `k` (from 0).
    public func flashStart(_ k: Int) -> Duration { frameTime(k * framesPerFlash) }
}
