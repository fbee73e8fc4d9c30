import Testing
@testable import TokKitStreaming

/// Layer sizes and bitrate shares, worked by hand.
@Suite("SimulcastLayout") struct SimulcastLayoutTests {
    private func sizes(_ l: SimulcastLayout) -> [String] { l.layers.map { "\($0.width)x\($0.height)" } }

    @Test func threeLayersHalveTwiceFromTheEncodeSize() {
        let l = SimulcastLayout(width: 1280, height: 720, bitrate: 1_600_000, maximumLayers: 3)
        #expect(sizes(l) == ["320x180", "640x360", "1280x720"])
        // 1_600_000 / 16 = 100_000; × 4 = 400_000; the rest 1_100_000.
        #expect(l.layers.map(\.bitrate) == [100_000, 400_000, 1_100_000])
        #expect(sizes(SimulcastLayout(width: 640, height: 360, bitrate: 800_000, maximumLayers: 3))
            == ["160x90", "320x180", "640x360"])
    }

    @Test func smallCapturesGetFewerLayersAndOddHalvesRoundDownToEven() {
        // 160x120 would be the smallest of three: kept (≥ 160x90).
        #expect(sizes(SimulcastLayout(width: 640, height: 480, bitrate: 1_000_000, maximumLayers: 3))
            == ["160x120", "320x240", "640x480"])
        // 320x240: a third layer would be 80x60.
        let two = SimulcastLayout(width: 320, height: 240, bitrate: 500_000, maximumLayers: 3)
        #expect(sizes(two) == ["160x120", "320x240"])
        #expect(two.layers.map(\.bitrate) == [100_000, 400_000])  // 1 : 4
        #expect(sizes(SimulcastLayout(width: 240, height: 160, bitrate: 300_000, maximumLayers: 3)) == ["240x160"])
        // 652 / 4 = 163, 366 / 4 = 91: odd halves round down to even.
        #expect(sizes(SimulcastLayout(width: 652, height: 366, bitrate: 900_000, maximumLayers: 3))
            == ["162x90", "326x182", "652x366"])
        // Asked for fewer, or out of range.
        #expect(sizes(SimulcastLayout(width: 1280, height: 720, bitrate: 1_000_000, maximumLayers: 2))
            == ["640x360", "1280x720"])
        #expect(SimulcastLayout(width: 1280, height: 720, bitrate: 1_000_000, maximumLayers: 0).count == 1)
        #expect(SimulcastLayout(width: 1280, height: 720, bitrate: 1_000_000, maximumLayers: 9).count == 3)
    }

    @Test func anExactCountKeepsEveryLayerWhateverTheSize() {
        #expect(sizes(SimulcastLayout(width: 240, height: 160, bitrate: 300_000, maximumLayers: 3, exact: true))
            == ["60x40", "120x80", "240x160"])
        #expect(sizes(SimulcastLayout(width: 4, height: 2, bitrate: 300_000, maximumLayers: 3, exact: true))
            == ["2x2", "2x2", "4x2"])
        // Through the settings: announced three at 640x360, then a capturer of 320x240.
        var s = VideoEncodeSettings(width: 640, height: 360)
        s.simulcastLayers = 3
        s.simulcastLayersExact = true
        s.width = 320
        s.height = 240
        #expect(sizes(s.simulcastLayout) == ["80x60", "160x120", "320x240"])
        s.simulcastLayersExact = false
        #expect(s.simulcastLayout.count == 2)
    }

    @Test func aLowTotalKeepsEveryLayerAtItsFloor() {
        // 200_000 / 16 = 12_500 → floor 30_000; × 4 = 50_000; the rest 120_000.
        #expect(SimulcastLayout.split(200_000, layers: 3) == [30_000, 50_000, 120_000])
        // Below the floors altogether: each layer at its floor (the sum exceeds the total).
        #expect(SimulcastLayout.split(40_000, layers: 3) == [30_000, 30_000, 30_000])
        // One layer takes the total as it is, however low.
        #expect(SimulcastLayout.split(12_000, layers: 1) == [12_000])
    }

    @Test func settingsValidateTheLayerCount() throws {
        var s = VideoEncodeSettings(width: 640, height: 360)
        #expect(s.simulcastLayers == 1 && s.simulcastLayout.count == 1)
        s.simulcastLayers = 3
        try s.validate()
        #expect(s.simulcastLayout.count == 3)
        s.simulcastLayers = 4
        #expect(throws: StreamingError.self) { try s.validate() }
        s.simulcastLayers = 0
        #expect(throws: StreamingError.self) { try s.validate() }
    }
}
