/// How a ``Session`` retries after its WebSocket drops: exponential backoff with full jitter, bounded both in
/// attempts and in total time (which should not exceed the server's reconnect grace period, after which the
/// server has forgotten the connection anyway).
///
/// A plain value; ``delay(beforeAttempt:)`` is pure apart from the jitter source.
public struct ReconnectPolicy: Sendable, Hashable {
    /// Most attempts before giving up (reported as ``SessionEvent/disconnected`` after ``SessionEvent/failed(_:)``
    /// with ``SessionError/connectionDropped``).
    public var maxAttempts: Int
    /// Delay before the first retry.
    public var initialDelay: Duration
    /// Upper bound of any single delay.
    public var maxDelay: Duration
    /// Give up once this much time has passed since the drop.
    public var totalTimeout: Duration

    /// A policy of at most `maxAttempts` retries (negative counts as 0), `initialDelay` doubling up to `maxDelay`,
    /// within `totalTimeout` of the drop.
    public init(maxAttempts: Int = 8, initialDelay: Duration = .milliseconds(100),
                maxDelay: Duration = .seconds(2), totalTimeout: Duration = .seconds(15)) {
        self.maxAttempts = max(0, maxAttempts)
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.totalTimeout = totalTimeout
    }

    /// The default: 8 attempts, 100 ms doubling to 2 s, within 15 s.
    public static let standard = ReconnectPolicy()
    /// Never reconnect: a drop disconnects the session at once.
    public static let never = ReconnectPolicy(maxAttempts: 0)

    /// The wait before attempt `n` (1-based): `min(maxDelay, initialDelay * 2^(n-1))`, scaled by a random
    /// factor in [0.5, 1] so that many clients dropped together do not retry in lockstep.
    public func delay(beforeAttempt n: Int) -> Duration {
        var d = initialDelay
        var i = 1
        while i < n && d < maxDelay {
            d = d * 2
            i += 1
        }
        d = min(d, maxDelay)
        return d * Double.random(in: 0.5...1.0)
    }
}
