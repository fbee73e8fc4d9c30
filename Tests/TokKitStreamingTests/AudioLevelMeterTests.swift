import Testing
@testable import TokKitStreaming

@Suite("AudioLevelMeter") struct AudioLevelMeterTests {
    static func record(_ meter: AudioLevelMeter, peak: Int16, at milliseconds: Int64) {
        let period = Tone.samples(1_000, count: 480, offset: 0, amplitude: Double(peak))
        period.withUnsafeBufferPointer { meter.record($0, at: .milliseconds(milliseconds)) }
    }

    @Test func thePeakOverFullScaleHalvingEvery50msOnceTheSoundStops() {
        let meter = AudioLevelMeter()
        #expect(meter.level(at: .seconds(1)) == 0)
        Self.record(meter, peak: 16_384, at: 1_000)
        #expect(abs(meter.level(at: .milliseconds(1_000)) - 0.5) < 0.01)
        #expect(abs(meter.level(at: .milliseconds(1_050)) - 0.25) < 0.01)
        #expect(abs(meter.level(at: .milliseconds(1_100)) - 0.125) < 0.01)
        #expect(meter.level(at: .milliseconds(1_600)) == 0, "12 half-lives later it reads as silence")
        #expect(abs(meter.level(at: .milliseconds(999)) - 0.5) < 0.01, "a reader a little behind the record sees it")
    }

    @Test func aQuieterPeriodDoesNotPullTheNeedleDownFasterThanTheFallOff() {
        let meter = AudioLevelMeter()
        Self.record(meter, peak: 16_384, at: 0)
        Self.record(meter, peak: 1_000, at: 10)
        #expect(meter.level(at: .milliseconds(10)) > 0.4)
        Self.record(meter, peak: 30_000, at: 20)
        #expect(abs(meter.level(at: .milliseconds(20)) - Float(30_000) / 32_767) < 0.01)
    }

    @Test func fullScaleIsOneAndSilenceIsZero() {
        let meter = AudioLevelMeter()
        [Int16.min, 0].withUnsafeBufferPointer { meter.record($0, at: .zero) }
        #expect(meter.level(at: .zero) == 1)
        let silent = AudioLevelMeter()
        [Int16](repeating: 0, count: 480).withUnsafeBufferPointer { silent.record($0, at: .zero) }
        #expect(silent.level(at: .zero) == 0)
    }
}
