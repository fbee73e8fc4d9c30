import Testing
import TokKitCodecs
import TokKitRTP

/// ``OpusPacket/hasRedundancy(_:)`` on what libopus makes: in-band FEC on with expected loss puts LBRR in the
/// packets (after the first, which has nothing before it to protect), off puts none.
struct OpusRedundancyTests {
    /// The redundancy flag of 100 packets (two seconds) of ``Tone/voice(count:offset:)`` (SILK codes LBRR only
    /// where its voice activity detector hears speech).
    static func flags(fec: Bool, loss: Int) throws -> [Bool] {
        let encoder = try OpusEncoder(settings: OpusEncoderSettings(inbandFEC: fec, expectedPacketLoss: loss))
        var output = [UInt8](repeating: 0, count: 1_500)
        var flags: [Bool] = []
        for frame in 0..<100 {
            let pcm = Tone.voice(count: 960, offset: frame * 960)
            let length = try pcm.withUnsafeBufferPointer { pcm in
                try output.withUnsafeMutableBytes { try encoder.encode(pcm, into: $0) }
            }
            flags.append(output.withUnsafeBytes { OpusPacket.hasRedundancy(UnsafeRawBufferPointer(rebasing: $0[..<length])) })
        }
        return flags
    }

    @Test func fecWithExpectedLossCarriesRedundancy() throws {
        let flags = try Self.flags(fec: true, loss: 10)
        #expect(flags.dropFirst(5).filter { $0 }.count >= 50, "\(flags)")
    }

    @Test func noFecNoRedundancy() throws {
        #expect(try Self.flags(fec: false, loss: 10).allSatisfy { !$0 })
    }

    @Test func malformedOrCeltOnlyPacketsHaveNone() {
        let cases: [[UInt8]] = [[], [0xFC], [0x03, 0x00], [0xF8, 0xFF, 0xFF]]  // empty, CELT, bad code 3, CELT
        for bytes in cases {
            #expect(!bytes.withUnsafeBytes { OpusPacket.hasRedundancy($0) }, "\(bytes)")
        }
    }
}
