import Testing
import TokKitCodecs

@Suite struct OpusDecoderTests {
    @Test func fecRebuildsALostPacketFromTheNextOne() throws {
        // 5 % expected loss makes the encoder spend bits on in-band FEC (LBRR) in each packet.
        let settings = OpusEncoderSettings(expectedPacketLoss: 10)
        let packets = try OpusEncoderTests.packets(frequency: 440, settings: settings, frames: 50)
        let decoder = try OpusDecoder()
        var pcm = [Int16](repeating: 0, count: 960)
        for packet in packets[..<30] {
            _ = try packet.withUnsafeBytes { p in try pcm.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } }
        }
        // Packet 30 is lost; 31 has arrived.
        let n = try packets[31].withUnsafeBytes { p in try pcm.withUnsafeMutableBufferPointer { try decoder.decodeMissing(using: p, into: $0) } }
        #expect(n == 960)
        #expect(TestSignals.rms(pcm[...]) > 3_000, "FEC gives audio, not silence")
        #expect(abs(TestSignals.dominantFrequency(in: pcm[...], low: 400, high: 480) - 440) <= 6)
        let next = try packets[31].withUnsafeBytes { p in try pcm.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } }
        #expect(next == 960)
    }

    @Test func concealmentFillsExactlyTheLostDuration() throws {
        let packets = try OpusEncoderTests.packets(frequency: 1000, frames: 10)
        let decoder = try OpusDecoder()
        var pcm = [Int16](repeating: 0, count: 960)
        for packet in packets {
            _ = try packet.withUnsafeBytes { p in try pcm.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } }
        }
        for samples in [960, 480, 120] {
            var lost = [Int16](repeating: 0, count: samples)
            let n = try lost.withUnsafeMutableBufferPointer { try decoder.decodeMissing(using: nil, into: $0) }
            #expect(n == samples)
        }
        var odd = [Int16](repeating: 0, count: 500)
        #expect(throws: CodecError.wrongFrameLength(expected: 480, actual: 500)) {
            _ = try odd.withUnsafeMutableBufferPointer { try decoder.decodeMissing(using: nil, into: $0) }
        }
    }

    @Test func outputTooSmallAndInvalidPacketsAreTypedErrors() throws {
        let packets = try OpusEncoderTests.packets(frequency: 440, frames: 2)
        let decoder = try OpusDecoder()
        var small = [Int16](repeating: 0, count: 959)
        #expect(throws: CodecError.bufferTooSmall(size: 959, needed: 960)) {
            _ = try packets[0].withUnsafeBytes { p in try small.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } }
        }
        var pcm = [Int16](repeating: 0, count: OpusDecoder.maximumSamplesPerChannel)
        // Code 3 with a frame count of 0, and an empty packet, are invalid.
        for bad: [UInt8] in [[0x03, 0x00], []] {
            #expect(performing: {
                _ = try bad.withUnsafeBytes { p in try pcm.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } }
            }, throws: { error in
                if case .corruptFrame = error as? CodecError { true } else { false }
            })
        }
        // Random bytes: an error or some audio, never a crash or an overrun.
        var rng = SplitMix64(state: 3)
        for length in 1...64 {
            let garbage = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let n = try? garbage.withUnsafeBytes { p in try pcm.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } }
            #expect((n ?? 0) <= OpusDecoder.maximumSamplesPerChannel)
        }
        #expect(throws: CodecError.invalidSettings("channels 3 (1 or 2)")) { _ = try OpusDecoder(channels: 3) }
    }
}
