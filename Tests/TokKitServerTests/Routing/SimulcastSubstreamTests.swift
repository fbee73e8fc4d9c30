import Testing
import TokKitProtocol
@testable import TokKitServer

/// A preferred resolution → the Janus substream, worked by hand against the layers a TokKit publisher sends.
@Suite struct SimulcastSubstreamTests {
    private func choose(_ published: (Int, Int)?, _ preferred: (Int, Int)?) -> Int {
        SimulcastSubstream.choose(published: published.map { VideoDimensions(width: $0.0, height: $0.1) },
                                  preferred: preferred.map { VideoDimensions(width: $0.0, height: $0.1) })
    }

    @Test func theLargestLayerInsideThePreferenceSmallestWhenNoneFitsFullWhenNone() {
        // 640x360 → 160x90, 320x180, 640x360.
        #expect(SimulcastSubstream.layerSizes(width: 640, height: 360).map { "\($0.width)x\($0.height)" }
            == ["160x90", "320x180", "640x360"])
        #expect(choose((640, 360), (320, 180)) == 1)
        #expect(choose((640, 360), (319, 180)) == 0)  // 320 does not fit in 319
        #expect(choose((640, 360), (100, 100)) == 0)  // nothing fits: the smallest
        #expect(choose((640, 360), (1920, 1080)) == 2)
        #expect(choose((640, 360), nil) == 2)
        // 1280x720: 320x180 is the smallest of three.
        #expect(choose((1280, 720), (320, 180)) == 0)
        #expect(choose((1280, 720), (640, 480)) == 1)
    }

    @Test func smallStreamsHaveFewerLayers() {
        // 320x240 → 160x120, 320x240 (a third would be 80x60): substreams 0 and 1.
        #expect(SimulcastSubstream.layerSizes(width: 320, height: 240).count == 2)
        #expect(choose((320, 240), nil) == 1)
        #expect(choose((320, 240), (160, 120)) == 0)
        #expect(SimulcastSubstream.layerSizes(width: 240, height: 160).count == 1)
        #expect(choose((240, 160), (100, 100)) == 0)
        #expect(choose((240, 160), nil) == 0)
    }

    @Test func aStreamWithoutAnnouncedSizeIsTakenAsThreeLayers() {
        #expect(choose(nil, nil) == 2)
        #expect(choose(nil, (320, 180)) == 0)
        #expect(choose(nil, (640, 480)) == 1)
        #expect(choose(nil, (1280, 720)) == 2)
    }
}
