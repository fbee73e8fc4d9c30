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
        // 15 fps (issue 15's case): 3.75 and less → 0, up to 7.5 → 1, above → 2.
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: 3.7, publisherFrameRate: 15) == 0)
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: 3.8, publisherFrameRate: 15) == 1)
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: 7.6, publisherFrameRate: 15) == 2)
        // 30 fps stated explicitly: the same as the default.
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: 7.5, publisherFrameRate: 30) == 0)
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: 15, publisherFrameRate: 30) == 1)
        // The tolerance: a quarter of 29.97 fps is 7.4925, yet 7.5 still means layer 0.
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: 7.5, publisherFrameRate: 29.97) == 0)
    }

    @Test func nonsenseRatesMeanEveryLayerOrTheLowest() {
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: .nan) == 2)
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: .infinity) == 2)
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: 0) == 0)
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: -3) == 0)
        #expect(SimulcastTemporalLayer.choose(preferredFrameRate: 10, publisherFrameRate: 0) == 2)
    }
}
