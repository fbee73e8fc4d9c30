import Testing
@testable import TokKitServer

/// A preferred frame rate → the Janus temporal layer, worked by hand for the 0, 2, 1, 2 pattern (layer 0 a quarter
/// of the frames, layers 0-1 half, all three every frame).
@Suite struct SimulcastTemporalLayerTests {
    @Test func thirtyFramesPerSecond() {
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: nil) == 2)
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: 1) == 0)
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: 7.5) == 0)
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: 7.6) == 1)
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: 15) == 1)
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: 15.1) == 2)
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: 30) == 2)
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: 60) == 2)
    }

    @Test func otherPublisherRates() {
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: 5, publisherFrameRate: 20) == 0)
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: 7.5, publisherFrameRate: 15) == 1)
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: 3.75, publisherFrameRate: 15) == 0)
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: 14, publisherFrameRate: 15) == 2)
    }

    @Test func nonsenseRatesMeanEveryLayerOrTheLowest() {
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: .nan) == 2)
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: .infinity) == 2)
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: 0) == 0)
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: -3) == 0)
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: 10, publisherFrameRate: 0) == 2)
    }
}
