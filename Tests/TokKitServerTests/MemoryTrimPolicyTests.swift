import Testing
@testable import TokKitServer

@Suite struct MemoryTrimPolicyTests {
    /// Feeds connection counts in order; which of them asked for a trim.
    private func trims(_ counts: [Int], minimumFall: Int = 64) -> [Int] {
        var policy = MemoryTrimPolicy(minimumFall: minimumFall)
        return counts.indices.filter { policy.shouldTrim(connections: counts[$0]) }.map { counts[$0] }
    }

    @Test func aCrowdLeavingTrimsOnceAndASteadyServerNever() {
        let rising = Array(stride(from: 0, through: 500, by: 50))
        // A few leave (not worth it), they come back, everyone leaves (once), then a small server's churn.
        let churn = Array(repeating: [40, 0], count: 10).flatMap { $0 }
        #expect(trims(rising + [480, 500, 0, 0] + churn) == [0])
    }

    @Test func aGradualFallTrimsEachTimeAQuarterOfThePeakHasLeft() {
        // 1,000 of 4,000 left, then a quarter of 3,000.
        #expect(trims([4_000, 3_100, 3_000, 2_300, 2_250]) == [3_000, 2_250])
    }
}
