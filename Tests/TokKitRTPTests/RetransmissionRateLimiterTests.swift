import Testing
import TokKitRTP

/// Retransmissions held to a rate, at most 100 ms owed ahead of now.
@Suite struct RetransmissionRateLimiterTests {
    /// At 400 kb/s a 1,200-byte copy takes 24 ms: four go at once, not a fifth (100 ms owed at most), 200 bytes more
    /// do; 100 ms later as many again. Without an estimate nothing is held back; however low the estimate, a full-size copy goes now and then, at the estimate on average.
    @Test func aWindowCarriesWhatTheEstimateCarriesInItsTime() {
        var limiter = RetransmissionRateLimiter()
        let ms: UInt64 = 1_000_000
        let first = (0 ..< 5).map { _ in limiter.allows(1_200, now: 1_000 * ms, rate: 400_000) }
        #expect(first == [true, true, true, true, false])
        let rest = limiter.allows(200, now: 1_000 * ms, rate: 400_000)  // what is left still fits
        let over = limiter.allows(1, now: 1_000 * ms, rate: 400_000)
        #expect(rest && !over)
        let second = (0 ..< 5).map { _ in limiter.allows(1_200, now: 1_100 * ms, rate: 400_000) }
        #expect(second == [true, true, true, true, false])
        #expect((0 ..< 100).allSatisfy { _ in limiter.allows(1_200, now: 1_150 * ms, rate: nil) })
        // At 8 kb/s a full-size copy (1.2 s) still goes, then none until it is paid off.
        var slow = RetransmissionRateLimiter()
        let sent = stride(from: 1_200, through: 2_500, by: 100).filter { t in
            slow.allows(1_200, now: UInt64(t) * ms, rate: 8_000)
        }
        #expect(sent == [1_200, 2_400])
    }

    /// What is owed is time at the rate it was sent under: after a cut from 800 kb/s to 50 kb/s, four copies sent
    /// just before it (48 ms at 800 kb/s) are paid off 48 ms later, and one copy goes then (counted in bytes, 4,800
    /// bytes would have taken 0.77 s at the lower rate).
    @Test func aCutDoesNotMakeWhatWasSentBeforeItDearer() {
        var limiter = RetransmissionRateLimiter()
        let ms: UInt64 = 1_000_000
        let before = (0 ..< 4).map { _ in limiter.allows(1_200, now: 1_000 * ms, rate: 800_000) }
        let after = [1_040, 1_048, 1_200, 1_240].map { t in limiter.allows(1_200, now: UInt64(t) * ms, rate: 50_000) }
        #expect(before == [true, true, true, true])
        #expect(after == [false, true, false, true])  // the one at 1,048 ms takes 192 ms
    }
}
