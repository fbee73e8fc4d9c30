#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import TokKitMedia

/// The audio half of a flash-and-beep source: an ``AudioDevice`` whose capture is silence with a sine beep
/// (``frequency`` Hz, peak ``amplitude``) exactly while its ``FlashBeepSchedule`` flashes, the video half being a
/// ``FlashBeepCapturer`` on the same schedule. It cannot play (rendering is not available).
///
/// Capture runs on a ``PeriodicThread`` named `tk-beep` every 10 ms, on a sample clock as a sound card's: the first
/// period (480 samples, 48 kHz mono) handed over at time `T` holds the samples captured during the 10 ms before `T`
/// (what TokKit's send pipeline assumes when it stamps them), and sample `k` from then on was captured at
/// `T - 10 ms + k / 48000 s`. Like a sound card's buffer, the clock does not wait for a late reader: each tick hands
/// over every period complete by then (a loaded machine's late ticks would otherwise let the sample clock fall
/// behind the wall clock, and the beeps with it), at most ``maximumBacklog`` at once; a longer stall loses the
/// older samples, as an overrun does. A sample is part of the beep when the schedule says its capture instant is
/// in a flash. Nothing is allocated per period.
public final class FlashBeepAudioDevice: AudioDevice {
    /// When it beeps.
    public let schedule: FlashBeepSchedule
    /// The beep's frequency in Hz.
    public let frequency: Double
    /// The beep's peak sample value.
    public let amplitude: Int16
    /// 48 kHz mono.
    public let captureFormat = AudioFormat.voice
    /// 48 kHz mono (nothing is played).
    public let renderFormat = AudioFormat.voice

    private struct Control {
        var bus: (any AudioBus)?
        var initialized = false
        var thread: PeriodicThread?
    }

    private let control = Mutex(Control())
    private let periods = PeriodCounter()

    /// A device beeping at `frequency` Hz with peak `amplitude` in the flashes of `schedule`.
    public init(schedule: FlashBeepSchedule, frequency: Double = 1_000, amplitude: Int16 = 8_000) {
        self.schedule = schedule
        self.frequency = frequency
        self.amplitude = amplitude
    }

    deinit { stopCapture() }

    /// Most periods handed over by one late tick (500 ms, a sound server's buffer); older ones are lost, as in an
    /// overrun (TokKit's send pipeline then moves its timestamps on by what was lost, within 0.25 s). Until
    /// 2026-11-28 it was 80 ms, so a loaded machine's stalls lost samples: a beep's start, and (with the send
    /// pipeline's clock of then) the timestamps' place for a while.
    public static let maximumBacklog = 50

    /// Periods handed to the bus so far.
    public var periodsCaptured: Int { periods.count.load(ordering: .relaxed) }

    public func setAudioBus(_ bus: (any AudioBus)?) { control.withLock { $0.bus = bus } }

    // MARK: Rendering

    /// False: this device only captures.
    public var isRenderingAvailable: Bool { false }
    public func initializeRendering() throws(AudioDeviceError) { throw .noSuchDevice("(flash-and-beep device: capture only)") }
    public var isRenderingInitialized: Bool { false }
    public func startRendering() throws(AudioDeviceError) { throw .notInitialized }
    public func stopRendering() {}
    public var isRendering: Bool { false }
    /// Zero: nothing is played.
    public var estimatedRenderDelay: Duration { .zero }

    // MARK: Capture

    /// Always true.
    public var isCaptureAvailable: Bool { true }
    public func initializeCapture() throws(AudioDeviceError) { control.withLock { $0.initialized = true } }
    public var isCaptureInitialized: Bool { control.withLock { $0.initialized } }

    public func startCapture() throws(AudioDeviceError) {
        let (schedule, frequency, amplitude, periods) = (self.schedule, self.frequency, Double(self.amplitude), self.periods)
        try control.withLock { (c) throws(AudioDeviceError) in
            guard c.initialized else { throw .notInitialized }
            guard c.thread == nil else { return }
            let buffer = SampleBuffer(count: 480)
            c.thread = PeriodicThread(name: "tk-beep", interval: .milliseconds(10)) { [weak self] in
                guard let self else { return false }
                let samples = buffer.samples, period = Int64(samples.count)
                let now = MonotonicClock.now().nanoseconds
                if buffer.start == nil { buffer.start = now - 10_000_000 }
                let start = buffer.start ?? 0
                // Samples complete by now on the sample clock; a backlog beyond the bound is dropped (overrun).
                let due = (now - start) * 48_000 / 1_000_000_000
                buffer.captured = max(buffer.captured, due - Int64(Self.maximumBacklog) * period)
                let bus = self.control.withLock { $0.bus }
                while buffer.captured + period <= due {
                    for i in 0..<samples.count {
                        let t = Duration.nanoseconds(start + (buffer.captured + Int64(i)) * 1_000_000_000 / 48_000)
                        guard schedule.isBeeping(at: t) else { samples[i] = 0; continue }
                        let seconds = (t - schedule.origin).seconds
                        samples[i] = Int16(amplitude * sin(2 * Double.pi * frequency * seconds))
                    }
                    buffer.captured += period
                    bus?.writeCaptureData(UnsafeBufferPointer(samples))
                    periods.count.add(1, ordering: .relaxed)
                }
                return true
            }
        }
    }

    public func stopCapture() {
        let thread = control.withLock { c in defer { c.thread = nil }; return c.thread }
        thread?.stop()
    }

    public var isCapturing: Bool { control.withLock { $0.thread != nil } }
    /// Zero: each period is generated when it is due.
    public var estimatedCaptureDelay: Duration { .zero }
}

/// One period of samples and the sample clock, used only on the capture thread.
private final class SampleBuffer: @unchecked Sendable {
    let samples: UnsafeMutableBufferPointer<Int16>
    /// When the first sample was captured (monotonic nanoseconds), once started.
    var start: Int64?
    /// Samples captured so far.
    var captured: Int64 = 0
    init(count: Int) {
        samples = .allocate(capacity: count)
        samples.initialize(repeating: 0)
    }
    deinit { samples.deallocate() }
}

/// Periods captured, shared with the capture thread.
private final class PeriodCounter: Sendable {
    let count = Atomic<Int>(0)
}
