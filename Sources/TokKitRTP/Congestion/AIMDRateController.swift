#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The delay-based rate controller of draft-ietf-rmcat-gcc-02 §5.5: additive-increase, multiplicative-decrease
/// driven by the over-use detector's signal, with libwebrtc's `AimdRateControl` choices where the draft leaves
/// them open.
///
/// States (§5.5 table): over-use → *decrease*; normal → *increase* (from hold or increase; from decrease it
/// holds); under-use → *hold* (a queue is draining: keep the rate so it empties).
/// - Increase, far from convergence: multiplicative, `A × 1.08^min(Δt, 1 s)` (8 % per second). Near convergence
///   (the received rate within 3 standard deviations of the average rate measured at past decreases): additive,
///   about one packet per response time (RTT + 100 ms), at least 4 kb/s per second. Either way the estimate may
///   not rise above `1.5 × R_hat + 10 kb/s` (§5.5: it must not run away from what the path delivered).
/// - Decrease: `A = 0.85 × R_hat` (β, §5.5; ``overflowDecreaseFactor`` when the feedback also shows heavy loss),
///   R_hat the lower of the rate over the last half second and the recent one
///   (``ReceivedRateMeter/recentBitsPerSecond``), not above the current estimate, at most once per RTT unless the
///   received rate fell below half the estimate; then hold.
/// The estimate stays within [``minimum``, ``maximum``]. Times are µs, rates bits per second. A plain value.
public struct AIMDRateController: Sendable {
    public enum State: Sendable, Hashable { case hold, increase, decrease }

    /// β of §5.5.
    public static let decreaseFactor = 0.85
    /// β when the over-use comes with heavy loss (`overflowing`): the queue did not just grow, it filled and
    /// overflowed before the feedback could tell (a bottleneck's onset, the feedback delayed behind a full queue in
    /// the other direction too). At 0.85 the full queue drains at 15 % of the path's rate: behind a 500 kb/s
    /// drop-tail `tc tbf` (about 170 ms of queue) it stayed nearly full for over half a second after the cut, and the
    /// packets and key frames sent then were lost or late (network-bench's bottleneck row: a freeze after settling in
    /// most runs). 0.7 drains it twice as fast. The cut is of the measured rate, not of the estimate, so repeated
    /// cuts while the loss is still being reported do not compound.
    public static let overflowDecreaseFactor = 0.7
    /// η of §5.5 per second.
    public static let increaseFactorPerSecond = 1.08

    public let minimum: Int
    public let maximum: Int
    public private(set) var estimate: Int
    public private(set) var state: State = .hold
    /// Round-trip time assumed for the response time and the decrease spacing (µs).
    public var roundTripTime: Int64 = 200_000
    private var lastChange: Int64?
    private var lastDecrease: Int64?
    /// When the estimate was last cut by ``overflowDecreaseFactor`` (µs): the queue overflowed then.
    public private(set) var lastOverflowDecrease: Int64?
    /// Average and normalised variance of the received rate at decreases (kb/s), libwebrtc's convergence test.
    private var averageMaximum: Double?
    private var varianceMaximum = 0.4

    public init(minimum: Int, start: Int, maximum: Int) {
        self.minimum = minimum
        self.maximum = max(minimum, maximum)
        estimate = min(max(start, minimum), self.maximum)
    }

    /// Applies one detector signal at `now`, with the received rate if known (over half a second, and over the
    /// last messages: `recentRate`) and whether the feedback shows heavy loss (`overflowing`); returns the new
    /// estimate.
    @discardableResult
    public mutating func update(_ usage: BandwidthUsage, receivedRate: Int?, recentRate: Int? = nil,
                                overflowing: Bool = false, now: Int64) -> Int {
        switch usage {
        case .overusing: state = .decrease
        case .underusing: state = .hold
        case .normal: if state == .hold { state = .increase } else if state == .decrease { state = .hold }
        }
        let elapsed = min(now - (lastChange ?? now), 1_000_000)
        switch state {
        case .hold: break
        case .increase:
            if let r = receivedRate, let average = averageMaximum {
                let kbps = Double(r) / 1000
                if kbps > average + 3 * (varianceMaximum * average).squareRoot() { averageMaximum = nil }
            }
            let current = Double(estimate)
            let increase: Double
            if averageMaximum != nil {
                increase = max(nearMaximumIncreasePerSecond(), 1000) * Double(elapsed) / 1_000_000
            } else {
                let eta = pow(Self.increaseFactorPerSecond, Double(elapsed) / 1_000_000)
                increase = max(current * (eta - 1), 1000 * Double(elapsed) / 1_000_000)
            }
            var next = current + increase
            if let r = receivedRate { next = min(next, max(current, 1.5 * Double(r) + 10_000)) }
            estimate = clamp(Int(next))
        case .decrease:
            let spacing = min(max(roundTripTime, 10_000), 200_000)
            let due = lastDecrease.map { now - $0 >= spacing } ?? true
            let collapsed = receivedRate.map { $0 < estimate / 2 } ?? false
            if due || collapsed {
                let measured = recentRate.map { recent in receivedRate.map { min($0, recent) } ?? recent }
                let basis = Double(measured ?? receivedRate ?? estimate)
                let beta = overflowing ? Self.overflowDecreaseFactor : Self.decreaseFactor
                estimate = clamp(min(estimate, Int(beta * basis)))
                lastDecrease = now
                if overflowing { lastOverflowDecrease = now }
                if let r = receivedRate { learnMaximum(Double(r) / 1000) }
            }
            state = .hold
        }
        lastChange = now
        return estimate
    }

    /// libwebrtc's near-convergence increase: one average packet per response time, ≥ 4 kb/s per second.
    private func nearMaximumIncreasePerSecond() -> Double {
        let bitsPerFrame = Double(estimate) / 30
        let packetsPerFrame = (bitsPerFrame / (1200 * 8)).rounded(.up)
        let packetBits = bitsPerFrame / max(packetsPerFrame, 1)
        let responseSeconds = Double(roundTripTime + 100_000) / 1_000_000
        return max(4000, packetBits / responseSeconds)
    }

    private mutating func learnMaximum(_ kbps: Double) {
        let alpha = 0.05
        guard let average = averageMaximum else {
            averageMaximum = kbps
            return
        }
        if kbps > average + 3 * (varianceMaximum * average).squareRoot() { averageMaximum = kbps; return }
        let next = (1 - alpha) * average + alpha * kbps
        let norm = max(next, 1)
        varianceMaximum = min(max((1 - alpha) * varianceMaximum + alpha * (next - kbps) * (next - kbps) / norm, 0.4),
                              2.5)
        averageMaximum = next
    }

    private func clamp(_ value: Int) -> Int { min(max(value, minimum), maximum) }
}
