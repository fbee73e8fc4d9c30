import Testing
import TokKitMedia
@testable import TokKitStreaming

@Suite("AudioMixer", .serialized) struct AudioMixerTests {
    @Test func twoTonesMixedAreBothPresent() async throws {
        let output = try await AudioSendPipelineTests.call(tones: [440, 1_000])
        let tail = output.suffix(9_600)
        let p440 = Tone.power(tail, at: 440), p1000 = Tone.power(tail, at: 1_000), between = Tone.power(tail, at: 700)
        #expect(p440 > 100 * between && p1000 > 100 * between, "440: \(p440), 1000: \(p1000), 700: \(between)")
        #expect([440.0, 1_000].contains(Tone.dominant(tail)))
    }

    @Test func silenceWithoutStreamsAndStereoOutput() {
        let mixer = AudioMixer()
        var buffer = [Int16](repeating: 7, count: 960)
        let audible = buffer.withUnsafeMutableBufferPointer { mixer.mix(into: $0, channels: 2) }
        #expect(audible == 0 && buffer.allSatisfy { $0 == 0 })
    }
}
