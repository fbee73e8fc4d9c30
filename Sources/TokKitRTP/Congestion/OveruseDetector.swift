/// What the delay-based detector concludes about the path (draft-ietf-rmcat-gcc-02 §5.4).
public enum BandwidthUsage: Sendable, Hashable {
    case normal
    /// The queuing delay grows: the path's capacity is exceeded.
    case overusing
    /// The queuing delay shrinks: a queue is draining.
    case underusing
}

/// The over-use detector with an adaptive threshold (draft-ietf-rmcat-gcc-02 §5.4), with libwebrtc's constants
/// for the trendline's scale.
///
/// A modified trend above the threshold γ for more than ``overusingTime`` (10 ms of send time) and two deltas in
/// a row, not decreasing, signals over-use; below −γ under-use; otherwise normal. γ follows |m| (§5.4, eq. in
/// "adaptive threshold"): `γ += Δt × k × (|m| − γ)`, with k = ``thresholdUp`` when |m| > γ and
/// ``thresholdDown`` otherwise, Δt capped at 100 ms, γ kept in 6...600 ms, and not updated for outliers
/// (|m| > γ + 15). This keeps the detector from starving against loss-based flows and from firing on jitter. A
/// plain value, one thread.
public struct OveruseDetector: Sendable {
    public static let thresholdUp = 0.0087
    public static let thresholdDown = 0.039
    public static let overusingTime = 10.0
    public static let initialThreshold = 12.5

    /// γ in milliseconds.
    public private(set) var threshold = initialThreshold
    public private(set) var state: BandwidthUsage = .normal
    private var timeOverUsing = -1.0
    private var overuseCounter = 0
    private var previousTrend = 0.0
    private var lastUpdate: Int64?

    public init() {}

    /// Classifies one modified trend (ms) of a group whose send delta was `sendDelta` µs, at `now` µs.
    public mutating func detect(modifiedTrend trend: Double, sendDelta: Int64, now: Int64) -> BandwidthUsage {
        let sendDeltaMilliseconds = Double(sendDelta) / 1000
        if trend > threshold {
            timeOverUsing = timeOverUsing < 0 ? sendDeltaMilliseconds / 2 : timeOverUsing + sendDeltaMilliseconds
            overuseCounter += 1
            if timeOverUsing > Self.overusingTime, overuseCounter > 1, trend >= previousTrend {
                timeOverUsing = 0
                overuseCounter = 0
                state = .overusing
            }
        } else if trend < -threshold {
            timeOverUsing = -1
            overuseCounter = 0
            state = .underusing
        } else {
            timeOverUsing = -1
            overuseCounter = 0
            state = .normal
        }
        previousTrend = trend
        updateThreshold(trend, now: now)
        return state
    }

    private mutating func updateThreshold(_ trend: Double, now: Int64) {
        let last = lastUpdate ?? now
        lastUpdate = now
        let magnitude = abs(trend)
        if magnitude > threshold + 15 { return }  // an outlier (a delay spike) must not move γ
        let k = magnitude < threshold ? Self.thresholdDown : Self.thresholdUp
        let elapsed = min(Double(now - last) / 1000, 100)
        threshold = min(max(threshold + k * (magnitude - threshold) * elapsed, 6), 600)
    }
}
