/// A capture side that synthesizes its samples (silence or white noise) and writes one period per tick to the
/// bus. Its state is touched only on the side's data thread.
final class GeneratedCaptureWorker: AudioSideWorker, @unchecked Sendable {
    /// What it produces.
    enum Signal: Sendable, Hashable {
        case silence
        /// Uniform white noise in `-amplitude...amplitude`.
        case noise(amplitude: Int16)
    }

    private let buffer: PeriodBuffer
    private let signal: Signal
    private var random: UInt32

    init(format: AudioFormat, signal: Signal, seed: UInt32) {
        buffer = PeriodBuffer(format: format)
        self.signal = signal
        random = seed == 0 ? 0x9E37_79B9 : seed   // xorshift32 must not start at 0
    }

    func transferPeriod(_ bus: (any AudioBus)?) throws(AudioDeviceError) -> Bool {
        if case let .noise(amplitude) = signal {
            let span = Int32(amplitude.magnitude) + 1
            var x = random
            for i in buffer.samples.indices {
                x ^= x << 13; x ^= x >> 17; x ^= x << 5
                buffer.samples[i] = Int16(truncatingIfNeeded: Int32(bitPattern: x) % span)
            }
            random = x
        }
        bus?.writeCaptureData(buffer.readOnly)
        return true
    }
}
