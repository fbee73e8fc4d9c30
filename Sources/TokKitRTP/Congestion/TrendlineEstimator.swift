/// The delay-gradient filter of the delay-based controller: libwebrtc's trendline estimator, used in place of
/// the Kalman "arrival-time filter" of draft-ietf-rmcat-gcc-02 §5.3 (both estimate m(i), the queuing-delay
/// gradient; libwebrtc has used the trendline since 2017 because it reacts faster and needs no noise model).
///
/// Each group delta's delay variation d(i) (§5.2) is accumulated into the one-way queuing delay, smoothed
/// exponentially (α = ``smoothing``), and a least-squares line is fitted through the last ``windowSize`` (20)
/// points (arrival time, smoothed delay): its slope is the delay gradient (ms of queuing per ms). The value handed
/// to the detector is `min(deltas, 60) × slope × 4` (libwebrtc's `modified_trend`), comparable with the §5.4
/// threshold in milliseconds. The window is a fixed ring allocated at init. A plain value, one thread.
public struct TrendlineEstimator: Sendable {
    public static let windowSize = 20
    public static let smoothing = 0.9
    public static let thresholdGain = 4.0

    private var arrivals: [Double]
    private var delays: [Double]
    private var head = 0
    private var filled = 0
    private var firstArrival: Int64?
    private var accumulatedDelay = 0.0
    private var smoothedDelay = 0.0
    /// Deltas seen so far (capped at 60 in the modified trend).
    public private(set) var deltas = 0
    /// The last slope fitted (0 until the window is full).
    public private(set) var slope = 0.0

    public init() {
        arrivals = [Double](repeating: 0, count: Self.windowSize)
        delays = [Double](repeating: 0, count: Self.windowSize)
    }

    /// Adds one group delta; returns the modified trend (ms), 0 until the window is full.
    public mutating func update(_ delta: InterArrivalGrouper.Delta) -> Double {
        deltas += 1
        let first = firstArrival ?? delta.arrivalTime
        firstArrival = first
        accumulatedDelay += delta.delayVariationMilliseconds
        smoothedDelay = Self.smoothing * smoothedDelay + (1 - Self.smoothing) * accumulatedDelay
        arrivals[head] = Double(delta.arrivalTime - first) / 1000
        delays[head] = smoothedDelay
        head = (head + 1) % Self.windowSize
        filled = min(filled + 1, Self.windowSize)
        guard filled == Self.windowSize else { return 0 }
        slope = fittedSlope() ?? slope
        return Double(min(deltas, 60)) * slope * Self.thresholdGain
    }

    /// Least-squares slope of delay over arrival time; nil when every arrival is the same.
    private func fittedSlope() -> Double? {
        var sumX = 0.0, sumY = 0.0
        for i in 0 ..< filled { sumX += arrivals[i]; sumY += delays[i] }
        let meanX = sumX / Double(filled), meanY = sumY / Double(filled)
        var numerator = 0.0, denominator = 0.0
        for i in 0 ..< filled {
            let dx = arrivals[i] - meanX
            numerator += dx * (delays[i] - meanY)
            denominator += dx * dx
        }
        return denominator == 0 ? nil : numerator / denominator
    }
}
