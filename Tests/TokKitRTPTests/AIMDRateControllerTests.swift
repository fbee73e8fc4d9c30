import Testing
import TokKitRTP

/// The delay-based controller's decrease: β × the lower of the two received rates, deeper for an overflowing queue.
@Suite struct AIMDRateControllerTests {
    static func update(_ aimd: inout AIMDRateController, receivedRate: Int?, recentRate: Int?, overflowing: Bool,
                       now: Int64) -> Int {
        aimd.update(.overusing, receivedRate: receivedRate, recentRate: recentRate, overflowing: overflowing, now: now)
    }

    @Test func anOverUseCutsToBetaTimesTheLowerReceivedRate() {
        var aimd = AIMDRateController(minimum: 50_000, start: 10_000_000, maximum: 10_000_000)
        // The half second still holds the rate sent before a bottleneck; the recent rate is the bottleneck's.
        #expect(Self.update(&aimd, receivedRate: 900_000, recentRate: 500_000, overflowing: false, now: 1_000_000)
                == 425_000)
        #expect(aimd.lastOverflowDecrease == nil)
        // Without a recent rate, the half second's.
        var other = AIMDRateController(minimum: 50_000, start: 10_000_000, maximum: 10_000_000)
        #expect(Self.update(&other, receivedRate: 900_000, recentRate: nil, overflowing: false, now: 1_000_000)
                == 765_000)
    }

    @Test func anOverUseWithHeavyLossCutsDeeperWithoutCompounding() {
        var aimd = AIMDRateController(minimum: 50_000, start: 10_000_000, maximum: 10_000_000)
        #expect(Self.update(&aimd, receivedRate: 900_000, recentRate: 500_000, overflowing: true, now: 1_000_000)
                == 350_000)
        #expect(aimd.lastOverflowDecrease == 1_000_000)
        // A round trip later the loss is still reported and the path still delivers 500 kb/s: the same cut.
        #expect(Self.update(&aimd, receivedRate: 600_000, recentRate: 500_000, overflowing: true, now: 1_300_000)
                == 350_000)
        #expect(aimd.lastOverflowDecrease == 1_300_000)
    }
}
