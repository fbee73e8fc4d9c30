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
/// Chromium kept ~770); a 200 ms window over 25 % at 5 % random loss is vanishingly rare. When the caller says the
/// loss is congestion (`current`, see ``update(lost:total:now:current:)``), the fast window decides at 10 %. Times are µs, rates bits
/// per second. A plain value, no allocation.
public struct LossBasedController: Sendable {
    public static let window: Int64 = 1_000_000
    public static let fastWindow: Int64 = 200_000
    public static let fastLoss = 0.25
    /// The fast window's threshold when the loss is known to be congestion (`current` given): the slow window's
    /// 10 %, so a sender a little over a full drop-tail queue is cut within 200 ms too, not after a second.
    public static let congestedFastLoss = 0.10
    public static let minimumPackets = 10

    public let minimum: Int
    public let maximum: Int
    public private(set) var estimate: Int
    /// The loss fraction of the last complete window.
    public private(set) var lastLossFraction = 0.0
    private var windowStart: Int64?
    private var lost = 0
    private var total = 0
    private var fast = (start: Int64?.none, lost: 0, total: 0)

    public init(minimum: Int, start: Int, maximum: Int) {
        self.minimum = minimum
        self.maximum = max(minimum, maximum)
        estimate = min(max(start, minimum), self.maximum)
    }

    /// Whether the last ``update(lost:total:now:current:)`` decreased the estimate.
    public private(set) var decreased = false

    /// Counts one feedback's packets (`lost` of `total` reported) at `now`; returns the estimate.
    ///
    /// `current`: the sender's target now (the lower of this estimate and the delay-based one), when the loss is
    /// known to be congestion (the delay-based detector saw a queue build just before): a decrease then applies to
    /// it rather than to this controller's own estimate, which may sit far above what is being sent (it only
    /// grows while the delay-based estimate is the limit), so that the cut is felt at once, as libwebrtc's
    /// `SendSideBandwidthEstimation` cuts its one current target. Without it (nil), random loss cuts only this
    /// estimate, which a later lossless window raises again.
    @discardableResult
    public mutating func update(lost: Int, total: Int, now: Int64, current: Int? = nil) -> Int {
        decreased = false
        let basis = min(estimate, current ?? .max)
        let start = windowStart ?? now
        windowStart = start
        self.lost += lost
        self.total += total
        let fastStart = fast.start ?? now
        fast = (fastStart, fast.lost + lost, fast.total + total)
        if now - fastStart >= Self.fastWindow, fast.total >= Self.minimumPackets {
            let loss = Double(fast.lost) / Double(fast.total)
            fast = (now, 0, 0)
            if loss > (current == nil ? Self.fastLoss : Self.congestedFastLoss) {
                lastLossFraction = loss
                estimate = min(max(Int(Double(basis) * (1 - 0.5 * loss)), minimum), maximum)
                decreased = true
                (windowStart, self.lost, self.total) = (now, 0, 0)
                return estimate
            }
        }
        let elapsed = now - start
        guard elapsed >= Self.window, self.total >= Self.minimumPackets else { return estimate }
        let loss = Double(self.lost) / Double(self.total)
        lastLossFraction = loss
        var next = Double(estimate)
        if loss > 0.10 {
            next = Double(basis) * (1 - 0.5 * loss)
            decreased = true
        } else if loss < 0.02 {
            next *= pow(1.05, Double(min(elapsed, 1_000_000)) / 1_000_000)
        }
        estimate = min(max(Int(next), minimum), maximum)
        windowStart = now
        self.lost = 0
        self.total = 0
        return estimate
    }
}
