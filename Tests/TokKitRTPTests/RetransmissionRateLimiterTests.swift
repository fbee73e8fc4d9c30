import Testing
import TokKitRTP

/// Retransmissions held to the path's estimate, a 100 ms budget at a time.
@Suite struct RetransmissionRateLimiterTests {
    /// At 400 kb/s a window carries 5,000 bytes: four 1,200-byte copies, not a fifth; the next window carries as
    /// many again. Without an estimate nothing is held back; however low the estimate, a full-size copy goes now and then, at the estimate on average.
    @Test func aWindowCarriesWhatTheEstimateCarriesInItsTime() {
        var limiter = RetransmissionRateLimiter()
        let ms: UInt64 = 1_000_000
        let first = (0 ..< 5).map { i in limiter.allows(1_200, now: 1_000 * ms + UInt64(i) * ms, rate: 400_000) }
        #expect(first == [true, true, true, true, false])
        let rest = limiter.allows(200, now: 1_099 * ms, rate: 400_000)  // what is left still fits
        let over = limiter.allows(1, now: 1_099 * ms, rate: 400_000)
        #expect(rest && !over)
        let second = (0 ..< 5).map { i in limiter.allows(1_200, now: 1_100 * ms + UInt64(i) * ms, rate: 400_000) }
        #expect(second == [true, true, true, true, false])
        #expect((0 ..< 100).allSatisfy { _ in limiter.allows(1_200, now: 1_150 * ms, rate: nil) })
        // At 8 kb/s (100 bytes a window) a full-size copy still goes, then none until the twelve windows after it
        // have paid it off.
        var slow = RetransmissionRateLimiter()
        let sent = stride(from: 1_200, through: 2_500, by: 100).filter { t in
            slow.allows(1_200, now: UInt64(t) * ms, rate: 8_000)
        }
        #expect(sent == [1_200, 2_400])
    }
}
