import Testing
import TokKitCodecs

@Suite struct OpusEncoderTests {
    /// Encodes `frames` frames of a sine and returns the packets.
    static func packets(frequency: Double, settings: OpusEncoderSettings = OpusEncoderSettings(), frames: Int) throws -> [[UInt8]] {
        let encoder = try OpusEncoder(settings: settings)
        let n = settings.samplesPerFrame
        var out: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: OpusEncoder.maximumPacketSize)
        for f in 0..<frames {
            let pcm = TestSignals.sine(frequency: frequency, sampleRate: settings.sampleRate, channels: settings.channels,
                                       start: f * n, count: n * settings.channels)
            let length = try pcm.withUnsafeBufferPointer { p in try buffer.withUnsafeMutableBytes { try encoder.encode(p, into: $0) } }
            out.append(Array(buffer[..<length]))
        }
        return out
    }

    /// Decodes every packet in order into one PCM array.
    static func decodeAll(_ packets: [[UInt8]], channels: Int = 1) throws -> [Int16] {
        let decoder = try OpusDecoder(channels: channels)
        var pcm: [Int16] = []
        var buffer = [Int16](repeating: 0, count: OpusDecoder.maximumSamplesPerChannel * channels)
        for packet in packets {
            let n = try packet.withUnsafeBytes { p in try buffer.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } }
            pcm += buffer[..<(n * channels)]
        }
        return pcm
    }

    @Test(arguments: [(440, 1, 20), (1000, 1, 20), (440, 2, 20), (1000, 1, 10)])
    func sineRoundTripKeepsItsFrequency(frequency: Int, channels: Int, milliseconds: Int) throws {
        let settings = OpusEncoderSettings(channels: channels, frameDuration: .milliseconds(milliseconds))
        let frames = 1000 / milliseconds
        let packets = try Self.packets(frequency: Double(frequency), settings: settings, frames: frames)
        #expect(packets.allSatisfy { (2...400).contains($0.count) }, "32 kbps packets: \(packets.map(\.count))")
        let pcm = try Self.decodeAll(packets, channels: channels)
        #expect(pcm.count == 48_000 * channels, "one second back")
        let tail = pcm[(24_000 * channels)...]  // skip the codec's start-up
        let found = TestSignals.dominantFrequency(in: tail, low: frequency - 40, high: frequency + 40, channels: channels)
        #expect(abs(found - frequency) <= 2, "dominant \(found) Hz for \(frequency) Hz")
        let tone = TestSignals.power(at: Double(frequency), in: tail, channels: channels)
        let elsewhere = TestSignals.power(at: Double(frequency) * 1.37, in: tail, channels: channels)
        #expect(tone > 100 * elsewhere, "the tone stands out")
        #expect(TestSignals.rms(tail) > 5_000, "level kept (input RMS ≈ 7071)")
    }

    /// The signal hint reaches libopus: each packet's TOC byte names its mode (RFC 6716 §3.1: configurations 0-11
    /// SILK, 12-15 hybrid, 16-31 CELT). On a steady tone, `.voice` keeps SILK or hybrid (the modes that carry FEC),
    /// `.music` and `.auto` (libopus's classifier, WebRTC's default) go to CELT, the cheaper one: `.auto` once its
    /// classifier has heard the tone for a while (it starts in SILK; Debian 12's libopus 1.3.1, a floating-point
    /// build, switched after ~18 frames; the classifier differs between libopus versions).
    @Test(arguments: [(OpusEncoderSettings.Signal.voice, false), (.music, true), (.auto, true)])
    func theSignalHintChoosesTheMode(signal: OpusEncoderSettings.Signal, celt: Bool) throws {
        let packets = try Self.packets(frequency: 440, settings: OpusEncoderSettings(signal: signal), frames: 50)
        let configurations = packets.dropFirst(30).map { Int($0[0] >> 3) }
        #expect(configurations.allSatisfy { ($0 >= 16) == celt }, "\(signal): configurations \(configurations)")
    }

    @Test func wrongFrameLengthIsATypedError() throws {
        let encoder = try OpusEncoder(settings: OpusEncoderSettings())
        var out = [UInt8](repeating: 0, count: OpusEncoder.maximumPacketSize)
        for count in [0, 959, 961, 480, 1920] {
            let pcm = [Int16](repeating: 0, count: count)
            #expect(throws: CodecError.wrongFrameLength(expected: 960, actual: count)) {
                _ = try pcm.withUnsafeBufferPointer { p in try out.withUnsafeMutableBytes { try encoder.encode(p, into: $0) } }
            }
        }
        let stereo = try OpusEncoder(settings: OpusEncoderSettings(channels: 2, frameDuration: .milliseconds(10)))
        #expect(stereo.samplesPerFrame == 480)
        let pcm = [Int16](repeating: 0, count: 480)
        #expect(throws: CodecError.wrongFrameLength(expected: 960, actual: 480)) {
            _ = try pcm.withUnsafeBufferPointer { p in try out.withUnsafeMutableBytes { try stereo.encode(p, into: $0) } }
        }
    }

    @Test func outputTooSmallIsATypedError() throws {
        let encoder = try OpusEncoder(settings: OpusEncoderSettings())
        let pcm = TestSignals.sine(frequency: 440, start: 0, count: 960)
        for size in [0, 1] {
            var out = [UInt8](repeating: 0, count: size)
            #expect(throws: CodecError.bufferTooSmall(size: size, needed: OpusEncoder.maximumPacketSize)) {
                _ = try pcm.withUnsafeBufferPointer { p in try out.withUnsafeMutableBytes { try encoder.encode(p, into: $0) } }
            }
        }
    }

    @Test func settingsAreValidatedAndAdjustable() throws {
        for bad in [OpusEncoderSettings(sampleRate: 44_100), OpusEncoderSettings(channels: 3),
                    OpusEncoderSettings(frameDuration: .milliseconds(15)), OpusEncoderSettings(bitrate: 100),
                    OpusEncoderSettings(expectedPacketLoss: 101), OpusEncoderSettings(complexity: 11)] {
            #expect(performing: { _ = try OpusEncoder(settings: bad) }, throws: { error in
                if case .invalidSettings = error as? CodecError { true } else { false }
            })
        }
        let encoder = try OpusEncoder(settings: OpusEncoderSettings())
        try encoder.setBitrate(64_000)
        try encoder.setExpectedPacketLoss(20)
        #expect(encoder.settings.bitrate == 64_000 && encoder.settings.expectedPacketLoss == 20)
        #expect(throws: CodecError.self) { try encoder.setBitrate(1) }
        #expect(encoder.settings.bitrate == 64_000)
    }
}
