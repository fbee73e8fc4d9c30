import Synchronization
import TokKitAudio

/// Measures what a ``ToneAudioDevice`` plays, as its ``ToneAudioDevice/RenderSink``: how many 10 ms periods were
/// played, how many carried sound above ``threshold`` RMS and, over those, the frequency from zero crossings.
///
/// ``sink`` runs on the device's `tone-render` thread and allocates nothing; the readers may be used from any
/// thread (relaxed atomics).
public final class ToneMeter: Sendable {
    /// RMS above which a played period counts as sound.
    public let threshold: Double
    private let loudPeriods = Atomic<Int>(0)
    private let renderedPeriods = Atomic<Int>(0)
    private let crossings = Atomic<Int>(0)

    public init(threshold: Double = 1_000) {
        self.threshold = threshold
    }

    /// Periods played so far, and those that carried sound.
    public var periodsRendered: Int { renderedPeriods.load(ordering: .relaxed) }
    public var soundPeriods: Int { loudPeriods.load(ordering: .relaxed) }

    /// The frequency of the sound played so far, from its zero crossings (0 before any sound). Mono periods of
    /// 10 ms assumed (``AudioFormat/voice``).
    public var measuredFrequency: Double {
        let loud = soundPeriods
        return loud == 0 ? 0 : Double(crossings.load(ordering: .relaxed)) / 2 / (Double(loud) * 0.01)
    }

    public func reset() {
        loudPeriods.store(0, ordering: .relaxed)
        renderedPeriods.store(0, ordering: .relaxed)
        crossings.store(0, ordering: .relaxed)
    }

    /// Give this to ``ToneAudioDevice/init(frequency:amplitude:format:renderFile:renderSink:)``.
    public var sink: ToneAudioDevice.RenderSink {
        { [self] period in measure(period) }
    }

    private func measure(_ b: UnsafeBufferPointer<Int16>) {
        var energy = 0.0
        var flips = 0
        for i in 0..<b.count {
            energy += Double(b[i]) * Double(b[i])
            if i > 0, (b[i - 1] < 0) != (b[i] < 0) { flips += 1 }
        }
        renderedPeriods.add(1, ordering: .relaxed)
        if b.count > 0, (energy / Double(b.count)).squareRoot() > threshold {
            loudPeriods.add(1, ordering: .relaxed)
            crossings.add(flips, ordering: .relaxed)
        }
    }
}

extension ToneAudioDevice {
    /// A tone device (440 Hz by default) whose playback a new ``ToneMeter`` measures.
    public static func measured(frequency: Double = 440, threshold: Double = 1_000) -> (ToneAudioDevice, ToneMeter) {
        let meter = ToneMeter(threshold: threshold)
        return (ToneAudioDevice(frequency: frequency, renderSink: meter.sink), meter)
    }
}
