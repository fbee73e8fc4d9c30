#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The loss-based controller of draft-ietf-rmcat-gcc-02 §6: loss over 10 % cuts the estimate to
/// `A × (1 − 0.5 × loss)`, loss under 2 % raises it by 5 %, in between it holds.
///
/// The draft runs it once per receiver report (about a second). Transport-wide feedback arrives every 50 ms, so
/// losses are counted over windows of at least ``window`` (1 s, as the draft's reports) and ``minimumPackets``: a
/// decrease applies per window, the increase pro rata (1.05 per second of window). A congested bottleneck is not
/// left a second to overflow: over each ``fastWindow`` (200 ms) a loss above ``fastLoss`` (25 %) decreases at once
/// and starts the long window over. Deciding everything on 200 ms windows was too noisy: at 5 % random loss and a
/// few hundred kb/s (20-40 packets a window) one window in a dozen showed more than 10 % and cut the estimate while
/// almost none showed under 2 %, so the estimate sank to a fraction of the path (network-bench: ~200 kb/s where
/// Chromium kept ~770); a 200 ms window over 25 % at 5 % random loss is vanishingly rare.
///
/// A decrease, as libwebrtc's `SendSideBandwidthEstimation` (loss-based v1) makes it: from the target in force
/// (the lower of this and the delay-based estimate; libwebrtc's `current_target_`), and from what was actually sent
/// when that is lower (the received rate over the share of packets that arrived), and at most once per
/// ``decreaseInterval`` (libwebrtc's kBweDecreaseInterval, 300 ms, plus the round trip: 200 ms assumed), so a cut
/// is seen in the feedback before the next one. And not under β × the received rate (0.85, the delay-based
/// decrease of §5.5; libwebrtc's LossBasedBweV2 has the same kind of bound, `LowerBoundByAckedRateFactor`): at a
/// drop-tail bottleneck the path delivers its capacity while the excess is lost, and while the encoder and the send
/// queue catch up with the last cut the loss goes on; cutting again on it, each cut from the estimate's own value,
/// took the estimate from 10 Mb/s to its 50 kb/s floor within seconds of network-bench's 500 kb/s cap
/// (`SendSideBandwidthEstimatorBottleneckTests`). Under random loss the bound is below (1 − 0.5 × loss) of the
/// sent rate up to 30 % loss, so such loss lowers the estimate as before. Times are µs, rates bits per second. A
/// plain value, no allocation.
public struct LossBasedController: Sendable {
    public static let window: Int64 = 1_000_000
    public static let fastWindow: Int64 = 200_000
    public static let fastLoss = 0.25
    public static let minimumPackets = 10
    /// Shortest time between two decreases (µs): libwebrtc's 300 ms plus the 200 ms round trip assumed.
    public static let decreaseInterval: Int64 = 500_000
    /// The bound under a decrease, as a fraction of the received rate (β of §5.5).
    public static let receivedRateFloor = 0.85

    public let minimum: Int
    public let maximum: Int
    public private(set) var estimate: Int
    /// The loss fraction of the last complete window.
    public private(set) var lastLossFraction = 0.0
    private var windowStart: Int64?
    private var lost = 0
    private var total = 0
    private var fast = (start: Int64?.none, lost: 0, total: 0)
    private var lastDecrease: Int64?

    public init(minimum: Int, start: Int, maximum: Int) {
        self.minimum = minimum
        self.maximum = max(minimum, maximum)
        estimate = min(max(start, minimum), self.maximum)
    }

    /// Counts one feedback's packets (`lost` of `total` reported) at `now`; returns the estimate. `target` is the
    /// target in force (nil: this estimate), `receivedRate` R_hat (nil: unknown).
    @discardableResult
    public mutating func update(lost: Int, total: Int, now: Int64, target: Int? = nil,
                                receivedRate: Int? = nil) -> Int {
        let start = windowStart ?? now
        windowStart = start
        self.lost += lost
        self.total += total
        let fastStart = fast.start ?? now
        fast = (fastStart, fast.lost + lost, fast.total + total)
        if now - fastStart >= Self.fastWindow, fast.total >= Self.minimumPackets {
            let loss = Double(fast.lost) / Double(fast.total)
            fast = (now, 0, 0)
            if loss > Self.fastLoss, decreaseDue(now) {
                lastLossFraction = loss
                decrease(loss: loss, now: now, target: target, receivedRate: receivedRate)
                (windowStart, self.lost, self.total) = (now, 0, 0)
                return estimate
            }
        }
        let elapsed = now - start
        guard elapsed >= Self.window, self.total >= Self.minimumPackets else { return estimate }
        let loss = Double(self.lost) / Double(self.total)
        lastLossFraction = loss
        if loss > 0.10 {
            if decreaseDue(now) { decrease(loss: loss, now: now, target: target, receivedRate: receivedRate) }
        } else if loss < 0.02 {
            let next = Double(estimate) * pow(1.05, Double(min(elapsed, 1_000_000)) / 1_000_000)
            estimate = min(max(Int(next), minimum), maximum)
        }
        windowStart = now
        self.lost = 0
        self.total = 0
        return estimate
    }

    private func decreaseDue(_ now: Int64) -> Bool {
        lastDecrease.map { now - $0 >= Self.decreaseInterval } ?? true
    }

    /// × (1 − 0.5 × loss) from the lowest of this estimate, the target in force and the rate sent, not under
    /// β × the received rate, never up.
    private mutating func decrease(loss: Double, now: Int64, target: Int?, receivedRate: Int?) {
        var basis = Double(min(estimate, target ?? estimate))
        var floor = 0.0
        if let r = receivedRate {
            basis = min(basis, Double(r) / max(1 - loss, 0.05))
            floor = Self.receivedRateFloor * Double(r)
        }
        let next = min(max(basis * (1 - 0.5 * loss), floor), Double(estimate))
        estimate = min(max(Int(next), minimum), maximum)
        lastDecrease = now
    }
}
