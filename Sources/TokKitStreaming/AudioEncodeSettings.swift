import TokKitCodecs

/// What an ``AudioSendPipeline`` encodes: the Opus bitrate, and whether silence is sent as discontinuous
/// transmission (DTX).
///
/// The rest is fixed by the pipeline: 48 kHz mono, 20 ms packets, the VOIP application, in-band FEC, the signal
/// type left to libopus (see `OpusEncoderSettings`' defaults). FEC is carried only by SILK and hybrid frames: on
/// speech, or at 10 % planned loss and above (`OpusLossTuning`), where libopus chooses SILK for anything; music-like
/// input at lower loss goes out in CELT without it, as in WebRTC. Value type, usable from any thread.
public struct AudioEncodeSettings: Hashable, Sendable {
    /// Target bitrate in bits per second, 6000...510000. The default, 32 kbit/s, is WebRTC's for a voice call.
    public var bitrate: Int
    /// Discontinuous transmission. While the input is silent the encoder marks its frames as not worth sending
    /// (RFC 7587 §3.1.3); the first one still goes out, so the receiver knows silence began, the rest do not,
    /// apart from a comfort-noise update about every 400 ms. The first packet after a pause carries the RTP marker
    /// bit (RFC 3551 §4.1). Saves most of the audio bandwidth of a listener. Off by default, as in the SDK.
    public var dtx: Bool

    public init(bitrate: Int = 32_000, dtx: Bool = false) {
        self.bitrate = bitrate
        self.dtx = dtx
    }

    /// Throws ``StreamingError/invalidSettings(_:)`` when the bitrate is out of range.
    public func validate() throws(StreamingError) {
        guard (6_000...510_000).contains(bitrate) else {
            throw .invalidSettings("audio bitrate \(bitrate) (6000...510000 bits/s)")
        }
    }

    /// The Opus encoder configuration these settings stand for.
    var opus: OpusEncoderSettings { OpusEncoderSettings(bitrate: bitrate, dtx: dtx) }
}
