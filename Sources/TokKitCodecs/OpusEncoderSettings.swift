import COpus

/// How an ``OpusEncoder`` compresses. Plain data, `Sendable`; checked by ``validate()``.
///
/// Defaults match a WebRTC voice call: 48 kHz mono, 20 ms frames, 32 kbit/s, VOIP application, in-band FEC on
/// with 5 % expected loss (so a lost packet can be rebuilt from the next one), DTX off, and the signal type left to
/// libopus's classifier.
public struct OpusEncoderSettings: Hashable, Sendable {
    /// What libopus optimizes for (`OPUS_APPLICATION_*`).
    public enum Application: Hashable, Sendable {
        /// Speech intelligibility (`OPUS_APPLICATION_VOIP`).
        case voip
        /// Music and mixed content (`OPUS_APPLICATION_AUDIO`).
        case audio
        /// Lowest delay, CELT only (`OPUS_APPLICATION_RESTRICTED_LOWDELAY`).
        case lowDelay

        var rawValue: Int32 {
            switch self {
            case .voip: OPUS_APPLICATION_VOIP
            case .audio: OPUS_APPLICATION_AUDIO
            case .lowDelay: OPUS_APPLICATION_RESTRICTED_LOWDELAY
            }
        }
    }

    /// What the input is, as a hint to libopus's choice of mode (`OPUS_SET_SIGNAL`).
    public enum Signal: Hashable, Sendable {
        /// libopus decides frame by frame from its own speech/music classifier (`OPUS_AUTO`), as WebRTC leaves it.
        /// The classifier runs in floating-point builds at complexity 7 and above and 16 kHz and above (Debian's
        /// libopus 1.3 is such a build); below that libopus treats the input almost as speech.
        case auto
        /// Speech: biases libopus towards its SILK and hybrid modes, the only ones that carry in-band FEC, and
        /// costs several times the CPU of the CELT mode on music-like input (a tone: ~330 µs against ~90 µs a
        /// 20 ms frame at complexity 9 on these machines).
        case voice
        /// Music: biases libopus towards CELT.
        case music

        var rawValue: Int32 {
            switch self {
            case .auto: OPUS_AUTO
            case .voice: OPUS_SIGNAL_VOICE
            case .music: OPUS_SIGNAL_MUSIC
            }
        }
    }

    /// Input sample rate: 8000, 12000, 16000, 24000 or 48000 Hz (RTP always signals 48 kHz).
    public var sampleRate: Int
    /// 1 or 2; PCM is interleaved.
    public var channels: Int
    /// Duration of one frame: 10 or 20 ms.
    public var frameDuration: Duration
    /// Target bitrate in bits per second (6000...510000).
    public var bitrate: Int
    public var application: Application
    /// In-band forward error correction (needs ``expectedPacketLoss`` > 0 to spend bits on it).
    public var inbandFEC: Bool
    /// Expected packet loss in percent (0...100), tunes FEC.
    public var expectedPacketLoss: Int
    /// Discontinuous transmission: near-empty packets during silence.
    public var dtx: Bool
    /// CPU/quality trade-off 0...10.
    public var complexity: Int
    /// A hint to libopus's mode choice; ``Signal/auto`` unless the input is known.
    public var signal: Signal

    public init(
        sampleRate: Int = 48_000, channels: Int = 1, frameDuration: Duration = .milliseconds(20), bitrate: Int = 32_000,
        application: Application = .voip, inbandFEC: Bool = true, expectedPacketLoss: Int = 5, dtx: Bool = false,
        complexity: Int = 9, signal: Signal = .auto
    ) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.frameDuration = frameDuration
        self.bitrate = bitrate
        self.application = application
        self.inbandFEC = inbandFEC
        self.expectedPacketLoss = expectedPacketLoss
        self.dtx = dtx
        self.complexity = complexity
        self.signal = signal
    }

    /// Samples per channel in one frame.
    public var samplesPerFrame: Int { sampleRate * Int(frameDuration / .milliseconds(1)) / 1000 }

    /// Throws ``CodecError/invalidSettings(_:)`` naming the first value out of range.
    public func validate() throws(CodecError) {
        guard [8_000, 12_000, 16_000, 24_000, 48_000].contains(sampleRate) else {
            throw .invalidSettings("sampleRate \(sampleRate) (8000, 12000, 16000, 24000 or 48000)")
        }
        guard (1...2).contains(channels) else { throw .invalidSettings("channels \(channels) (1 or 2)") }
        guard frameDuration == .milliseconds(10) || frameDuration == .milliseconds(20) else {
            throw .invalidSettings("frameDuration \(frameDuration) (10 or 20 ms)")
        }
        guard (6_000...510_000).contains(bitrate) else { throw .invalidSettings("bitrate \(bitrate) (6000...510000)") }
        guard (0...100).contains(expectedPacketLoss) else {
            throw .invalidSettings("expectedPacketLoss \(expectedPacketLoss) (0...100)")
        }
        guard (0...10).contains(complexity) else { throw .invalidSettings("complexity \(complexity) (0...10)") }
    }
}
