import Testing
import TokKitStreaming

/// WebRTC's freeze definition, fed with times chosen by the test (no clock).
struct FreezeDetectorTests {
    /// Frames every `interval` from `start`, `count` of them.
    static func feed(_ d: inout FreezeDetector, from start: Duration, every interval: Duration, count: Int) -> Duration {
        var t = start
        for _ in 0..<count {
            d.frameRendered(at: t)
            t += interval
        }
        return t - interval
    }

    @Test func steadyFramesNeverFreeze() {
        var d = FreezeDetector()
        _ = Self.feed(&d, from: .zero, every: .milliseconds(33), count: 300)
        #expect(d.freezeCount == 0 && d.totalFreezesDuration == .zero)
        #expect(d.totalFramesDuration == .milliseconds(33 * 299))
    }

    @Test func aGapOfThreeMeansAndMoreThan150MillisecondsIsAFreeze() {
        var d = FreezeDetector()
        var t = Self.feed(&d, from: .zero, every: .milliseconds(33), count: 40)
        // At 30 fps, max(3 × 33, 33 + 150) = 183 ms: 180 ms is not a freeze, 190 ms is.
        t += .milliseconds(180)
        d.frameRendered(at: t)
        #expect(d.freezeCount == 0)
        t = Self.feed(&d, from: t + .milliseconds(33), every: .milliseconds(33), count: 40)
        t += .milliseconds(190)
        d.frameRendered(at: t)
        #expect(d.freezeCount == 1 && d.totalFreezesDuration == .milliseconds(190))
        #expect(d.freezeRatio > 0 && d.freezeRatio < 0.1)
    }

    @Test func atLowFrameRatesTheThreeMeansRuleDecides() {
        var d = FreezeDetector()
        // 5 fps: max(3 × 200, 200 + 150) = 600 ms.
        var t = Self.feed(&d, from: .zero, every: .milliseconds(200), count: 31)
        t += .milliseconds(590)
        d.frameRendered(at: t)
        #expect(d.freezeCount == 0)
        t = Self.feed(&d, from: t + .milliseconds(200), every: .milliseconds(200), count: 31)
        d.frameRendered(at: t + .milliseconds(600))
        #expect(d.freezeCount == 1)
    }

    @Test func theFirstFrameAndTimeGoingBackwardsCountNothing() {
        var d = FreezeDetector()
        d.frameRendered(at: .seconds(10))
        d.frameRendered(at: .seconds(5))
        #expect(d.freezeCount == 0 && d.totalFramesDuration == .zero && d.freezeRatio == 0)
    }
}
