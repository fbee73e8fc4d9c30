/// Sample rate and channel count of interleaved signed 16-bit PCM, as the SDK's `OTAudioFormat`.
///
/// TokKit's native period is 10 ms: devices move ``framesPerPeriod`` frames per call.
public struct AudioFormat: Hashable, Sendable, CustomStringConvertible {
    /// Samples per second per channel, in Hz (48 000 by default; TokKit's devices accept 8 000–48 000).
    public var sampleRate: Int
    /// Interleaved channels: 1 (mono) or 2 (stereo).
    public var numberOfChannels: Int

    /// A format of `sampleRate` Hz and `numberOfChannels` channels; nothing is checked here (see ``isSupported``).
    public init(sampleRate: Int = 48_000, numberOfChannels: Int = 1) {
        self.sampleRate = sampleRate
        self.numberOfChannels = numberOfChannels
    }

    /// 48 kHz mono: what the publisher captures and the subscriber mixes by default.
    public static let voice = AudioFormat()
    /// 48 kHz stereo.
    public static let stereo = AudioFormat(numberOfChannels: 2)

    /// The native period.
    public static let period: Duration = .milliseconds(10)

    /// Frames (one sample per channel) in one 10 ms period.
    public var framesPerPeriod: Int { sampleRate / 100 }
    /// Int16 samples in one period, all channels interleaved.
    public var samplesPerPeriod: Int { framesPerPeriod * numberOfChannels }
    /// Bytes in one period.
    public var bytesPerPeriod: Int { samplesPerPeriod * MemoryLayout<Int16>.size }

    /// Whether TokKit's devices and codecs accept it (8–48 kHz, mono or stereo, whole 10 ms periods).
    public var isSupported: Bool {
        (8_000...48_000).contains(sampleRate) && sampleRate % 100 == 0 && (1...2).contains(numberOfChannels)
    }

    /// The rate and channels, e.g. `48000 Hz, mono`.
    public var description: String { "\(sampleRate) Hz, \(numberOfChannels == 1 ? "mono" : "\(numberOfChannels) ch")" }
}
