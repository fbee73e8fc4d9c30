#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A capture side that synthesizes its samples (silence, white noise or a sine tone) and writes one period per
/// tick to the bus. Its state is touched only on the side's data thread.
final class GeneratedCaptureWorker: AudioSideWorker, @unchecked Sendable {
    /// What it produces.
    enum Signal: Sendable, Hashable {
        case silence
        /// Uniform white noise in `-amplitude...amplitude`.
        case noise(amplitude: Int16)
        /// A sine of `frequency` Hz and peak `amplitude`, the same on every channel.
        case tone(frequency: Double, amplitude: Int16)
    }

    private let buffer: PeriodBuffer
    private let signal: Signal
    private var random: UInt32
    private let channels: Int
    private let sampleRate: Double
    /// Phase of the tone, in radians, kept in `0..<2π`.
    private var phase = 0.0

    init(format: AudioFormat, signal: Signal, seed: UInt32) {
        buffer = PeriodBuffer(format: format)
        channels = format.numberOfChannels
        sampleRate = Double(format.sampleRate)
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
        } else if case let .tone(frequency, amplitude) = signal {
            let step = 2 * Double.pi * frequency / sampleRate
            var i = 0
            while i < buffer.samples.count {
                let value = Int16(Double(amplitude) * sin(phase))
                for c in 0..<channels { buffer.samples[i + c] = value }
                phase += step
                i += channels
            }
            phase = phase.truncatingRemainder(dividingBy: 2 * .pi)
        }
        bus?.writeCaptureData(buffer.readOnly)
        return true
    }
}
