import COpus

/// A libopus encoder: one frame of interleaved Int16 PCM in, one Opus packet (RFC 6716) out.
///
/// Threading: not `Sendable`; use it from one thread (the publisher's audio thread). Encoding allocates nothing.
public final class OpusEncoder {
    /// The largest packet one frame of at most 20 ms can produce (TOC byte + 1275), a safe output size.
    public static let maximumPacketSize = 1276

    public private(set) var settings: OpusEncoderSettings
    private let encoder: OpaquePointer

    /// - Throws: ``CodecError/invalidSettings(_:)``, ``CodecError/libopus(operation:status:)``.
    public init(settings: OpusEncoderSettings) throws(CodecError) {
        try settings.validate()
        self.settings = settings
        var status: Int32 = OPUS_OK
        guard let encoder = opus_encoder_create(Int32(settings.sampleRate), Int32(settings.channels),
                                                settings.application.rawValue, &status), status == OPUS_OK else {
            throw .libopus(operation: "opus_encoder_create", status: OpusStatus(rawValue: status))
        }
        self.encoder = encoder
        do throws(CodecError) {
            try set(OPUS_SET_BITRATE_REQUEST, settings.bitrate)
            try set(OPUS_SET_INBAND_FEC_REQUEST, settings.inbandFEC ? 1 : 0)
            try set(OPUS_SET_PACKET_LOSS_PERC_REQUEST, settings.expectedPacketLoss)
            try set(OPUS_SET_DTX_REQUEST, settings.dtx ? 1 : 0)
            try set(OPUS_SET_COMPLEXITY_REQUEST, settings.complexity)
            try set(OPUS_SET_SIGNAL_REQUEST, Int(settings.signal.rawValue))
        } catch {
            opus_encoder_destroy(encoder)
            throw error
        }
    }

    deinit { opus_encoder_destroy(encoder) }

    /// Samples per channel in one frame (``OpusEncoderSettings/samplesPerFrame``).
    public var samplesPerFrame: Int { settings.samplesPerFrame }

    /// Encodes exactly one frame and returns the packet's length in bytes (written at the start of `output`).
    ///
    /// - Parameters:
    ///   - pcm: `samplesPerFrame × channels` interleaved samples.
    ///   - output: room for the packet; ``maximumPacketSize`` bytes always suffice (a smaller buffer caps the
    ///     packet, and so the instant bitrate).
    /// - Throws: ``CodecError/wrongFrameLength(expected:actual:)``, ``CodecError/bufferTooSmall(size:needed:)``
    ///   (nothing fits), ``CodecError/libopus(operation:status:)``.
    public func encode(_ pcm: UnsafeBufferPointer<Int16>, into output: UnsafeMutableRawBufferPointer) throws(CodecError) -> Int {
        let expected = samplesPerFrame * settings.channels
        guard pcm.count == expected, let input = pcm.baseAddress else {
            throw .wrongFrameLength(expected: expected, actual: pcm.count)
        }
        guard let out = output.baseAddress, output.count >= 2 else {
            throw .bufferTooSmall(size: output.count, needed: Self.maximumPacketSize)
        }
        let n = opus_encode(encoder, input, Int32(samplesPerFrame), out.assumingMemoryBound(to: UInt8.self),
                            Int32(clamping: output.count))
        if n == OPUS_BUFFER_TOO_SMALL { throw .bufferTooSmall(size: output.count, needed: Self.maximumPacketSize) }
        guard n > 0 else { throw .libopus(operation: "opus_encode", status: OpusStatus(rawValue: n)) }
        return Int(n)
    }

    /// Changes the target bitrate (bits/s, 6000...510000) from the next frame on.
    public func setBitrate(_ bitsPerSecond: Int) throws(CodecError) {
        var updated = settings
        updated.bitrate = bitsPerSecond
        try updated.validate()
        try set(OPUS_SET_BITRATE_REQUEST, bitsPerSecond)
        settings = updated
    }

    /// Changes the expected packet loss (percent) that FEC is tuned for, e.g. from receiver reports.
    public func setExpectedPacketLoss(_ percent: Int) throws(CodecError) {
        var updated = settings
        updated.expectedPacketLoss = percent
        try updated.validate()
        try set(OPUS_SET_PACKET_LOSS_PERC_REQUEST, percent)
        settings = updated
    }

    private func set(_ request: Int32, _ value: Int) throws(CodecError) {
        let status = tokkit_opus_encoder_set(encoder, request, Int32(value))
        guard status == OPUS_OK else { throw .libopus(operation: "opus_encoder_ctl(\(request))", status: OpusStatus(rawValue: status)) }
    }
}
