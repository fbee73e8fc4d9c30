import COpus

/// A libopus decoder: Opus packets in, interleaved Int16 PCM out, with loss concealment.
///
/// Threading: not `Sendable`; use it from one thread (the subscriber's audio thread). Decoding allocates nothing.
/// When a packet is lost, call ``decodeMissing(using:into:)`` for its slot, with the packet that followed it if
/// already there (in-band FEC rebuilds the loss from it), then decode that next packet normally.
public final class OpusDecoder {
    /// The longest frame a packet can carry: 120 ms at 48 kHz, per channel.
    public static let maximumSamplesPerChannel = 5760

    public let sampleRate: Int
    public let channels: Int
    private let decoder: OpaquePointer

    /// - Parameters:
    ///   - sampleRate: output rate: 8000, 12000, 16000, 24000 or 48000 Hz (any packet decodes at any rate).
    ///   - channels: 1 or 2.
    /// - Throws: ``CodecError/invalidSettings(_:)``, ``CodecError/libopus(operation:status:)``.
    public init(sampleRate: Int = 48_000, channels: Int = 1) throws(CodecError) {
        guard [8_000, 12_000, 16_000, 24_000, 48_000].contains(sampleRate) else {
            throw .invalidSettings("sampleRate \(sampleRate) (8000, 12000, 16000, 24000 or 48000)")
        }
        guard (1...2).contains(channels) else { throw .invalidSettings("channels \(channels) (1 or 2)") }
        var status: Int32 = OPUS_OK
        guard let decoder = opus_decoder_create(Int32(sampleRate), Int32(channels), &status), status == OPUS_OK else {
            throw .libopus(operation: "opus_decoder_create", status: OpusStatus(rawValue: status))
        }
        self.sampleRate = sampleRate
        self.channels = channels
        self.decoder = decoder
    }

    deinit { opus_decoder_destroy(decoder) }

    /// Decodes one packet into `output` and returns the samples per channel written.
    ///
    /// - Throws: ``CodecError/corruptFrame(_:)`` for an empty or invalid packet, ``CodecError/bufferTooSmall(size:needed:)``
    ///   when `output` cannot hold the packet's duration (nothing is written), ``CodecError/libopus(operation:status:)``.
    public func decode(_ packet: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<Int16>) throws(CodecError) -> Int {
        guard let data = packet.baseAddress, !packet.isEmpty else { throw .corruptFrame("empty Opus packet") }
        guard packet.count <= Int(Int32.max) else { throw .corruptFrame("Opus packet of \(packet.count) bytes") }
        let bytes = data.assumingMemoryBound(to: UInt8.self)
        let duration = opus_decoder_get_nb_samples(decoder, bytes, Int32(packet.count))
        guard duration > 0 else {
            throw .corruptFrame("Opus packet: \(OpusStatus(rawValue: duration < 0 ? duration : OPUS_INVALID_PACKET))")
        }
        guard output.count >= Int(duration) * channels else {
            throw .bufferTooSmall(size: output.count, needed: Int(duration) * channels)
        }
        return try run(bytes, Int32(packet.count), output, frames: Int(duration), fec: false)
    }

    /// Fills `output` for one lost packet and returns the samples per channel written (`output.count / channels`).
    ///
    /// - Parameters:
    ///   - next: the packet that followed the lost one, if it has arrived: its in-band FEC data rebuilds the loss.
    ///     Without it (or if it carries no FEC), packet loss concealment extrapolates the audio.
    ///   - output: exactly the lost duration, a multiple of 2.5 ms (e.g. 960 samples per channel for 20 ms at
    ///     48 kHz).
    /// - Throws: ``CodecError/wrongFrameLength(expected:actual:)`` if `output` is not a whole number of 2.5 ms
    ///   steps (or is longer than 120 ms), ``CodecError/libopus(operation:status:)``.
    public func decodeMissing(using next: UnsafeRawBufferPointer?, into output: UnsafeMutableBufferPointer<Int16>) throws(CodecError) -> Int {
        let step = sampleRate / 400
        let frames = output.count / channels
        guard output.count % (step * channels) == 0, frames > 0, frames <= Self.maximumSamplesPerChannel * sampleRate / 48_000 else {
            let rounded = max(step, min(frames / step * step, Self.maximumSamplesPerChannel)) * channels
            throw .wrongFrameLength(expected: rounded, actual: output.count)
        }
        if let next, let base = next.baseAddress, !next.isEmpty, next.count <= Int(Int32.max) {
            return try run(base.assumingMemoryBound(to: UInt8.self), Int32(next.count), output, frames: frames, fec: true)
        }
        return try run(nil, 0, output, frames: frames, fec: false)
    }

    /// Forgets all state (e.g. when the stream's source changes).
    public func reset() {
        _ = tokkit_opus_decoder_reset(decoder)
    }

    private func run(
        _ data: UnsafePointer<UInt8>?, _ length: Int32, _ output: UnsafeMutableBufferPointer<Int16>, frames: Int, fec: Bool
    ) throws(CodecError) -> Int {
        guard let out = output.baseAddress else { throw .bufferTooSmall(size: 0, needed: frames * channels) }
        let n = opus_decode(decoder, data, length, out, Int32(frames), fec ? 1 : 0)
        if n == OPUS_INVALID_PACKET { throw .corruptFrame("invalid Opus packet") }
        guard n >= 0 else { throw .libopus(operation: "opus_decode", status: OpusStatus(rawValue: n)) }
        return Int(n)
    }
}
