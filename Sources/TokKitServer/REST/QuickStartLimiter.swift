import Synchronization

/// The rate limit of the credential-free quick-start calls (`GET /session`, `/room/{name}`, `/credentials/{id}`): a
/// token bucket per peer address, ``ServerConfiguration/quickStartBurst`` calls at once, refilled at
/// ``ServerConfiguration/quickStartRate`` calls per second.
///
/// Holds at most `maxAddresses` buckets: past that, the full ones (addresses idle long enough) are forgotten, and if
/// that is not enough, all of them. Thread-safe (`Sendable`): the buckets are guarded by a `Mutex`, held only to
/// count.
final class QuickStartLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    let rate: Double
    let burst: Double
    let maxAddresses: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    init(rate: Double, burst: Int, maxAddresses: Int = 10_000) {
        self.rate = rate
        self.burst = Double(burst)
        self.maxAddresses = maxAddresses
    }

    /// Takes one call from `address`'s bucket (nil: an address the socket did not report, one shared bucket);
    /// false if it is empty.
    func allow(_ address: String?, now: ContinuousClock.Instant = .now) -> Bool {
        let key = address ?? ""
        return buckets.withLock { buckets in
            if buckets[key] == nil, buckets.count >= maxAddresses { prune(&buckets, now: now) }
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + refill(since: bucket.updated, now: now))
            bucket.updated = now
            let allowed = bucket.tokens >= 1
            if allowed { bucket.tokens -= 1 }
            buckets[key] = bucket
            return allowed
        }
    }

    private func refill(since: ContinuousClock.Instant, now: ContinuousClock.Instant) -> Double {
        let (seconds, attoseconds) = (now - since).components
        return (Double(seconds) + Double(attoseconds) / 1e18) * rate
    }

    private func prune(_ buckets: inout [String: Bucket], now: ContinuousClock.Instant) {
        buckets = buckets.filter { $0.value.tokens + refill(since: $0.value.updated, now: now) < burst }
        if buckets.count >= maxAddresses { buckets.removeAll() }
    }
}
