import Testing
import TokKitCodecs

@Suite struct OpusDecoderTests {
    /// 440 Hz for frames 0..<30, then 1000 Hz: concealment can only continue the old tone, while FEC data in packet
    /// 31 carries the lost frame 30 itself, at the new one. FEC lives only in SILK and hybrid frames; libopus 1.3
    /// already chooses SILK for any input at this planned loss (10 %), and `.voice` keeps the test independent of
    /// that rule.
    @Test func fecRebuildsALostPacketFromTheNextOneWherePLCCannot() throws {
        let encoder = try OpusEncoder(settings: OpusEncoderSettings(expectedPacketLoss: 10, signal: .voice))
        var packets: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: OpusEncoder.maximumPacketSize)
        for f in 0..<40 {
            let pcm = TestSignals.sine(frequency: f < 30 ? 440 : 1000, start: f * 960, count: 960)
            let n = try pcm.withUnsafeBufferPointer { p in try buffer.withUnsafeMutableBytes { try encoder.encode(p, into: $0) } }
            packets.append(Array(buffer[..<n]))
        }
        func receive(_ range: Range<Int>, _ decoder: OpusDecoder) throws {
            var pcm = [Int16](repeating: 0, count: 960)
            for packet in packets[range] {
                _ = try packet.withUnsafeBytes { p in try pcm.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } }
            }
        }
        // Packet 30 is lost. With packet 31 at hand, FEC rebuilds it.
        let withFEC = try OpusDecoder()
        try receive(0..<30, withFEC)
        var rebuilt = [Int16](repeating: 0, count: 960)
        let n = try packets[31].withUnsafeBytes { p in try rebuilt.withUnsafeMutableBufferPointer { try withFEC.decodeMissing(using: p, into: $0) } }
        #expect(n == 960)
        // Without it, PLC extrapolates.
        let withPLC = try OpusDecoder()
        try receive(0..<30, withPLC)
        var concealed = [Int16](repeating: 0, count: 960)
        #expect(try concealed.withUnsafeMutableBufferPointer { try withPLC.decodeMissing(using: nil, into: $0) } == 960)

        let tail = 480...  // the second half of the lost frame, past any cross-fade
        let fecNew = TestSignals.power(at: 1000, in: rebuilt[tail]), fecOld = TestSignals.power(at: 440, in: rebuilt[tail])
        let plcNew = TestSignals.power(at: 1000, in: concealed[tail]), plcOld = TestSignals.power(at: 440, in: concealed[tail])
        #expect(TestSignals.rms(rebuilt[tail]) > 2_000, "FEC gives audio, not silence")
        #expect(fecNew > 10 * fecOld, "FEC carries the lost frame's 1000 Hz tone")
        #expect(plcNew < plcOld, "PLC, lacking the packet, continues 440 Hz")
        // The stream goes on normally.
        try receive(31..<40, withFEC)
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
