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
/// Chromium kept ~770); a 200 ms window over 25 % at 5 % random loss is vanishingly rare. Times are µs, rates bits
/// per second. A plain value, no allocation.
public struct LossBasedController: Sendable {
    public static let window: Int64 = 1_000_000
    public static let fastWindow: Int64 = 200_000
    public static let fastLoss = 0.25
    public static let minimumPackets = 10
    /// Loss over this decreases the estimate (the draft's 10 %): the loss the controller takes for congestion.
    public static let decreaseLoss = 0.10

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

    /// Counts one feedback's packets (`lost` of `total` reported) at `now`; returns the estimate.
    @discardableResult
    public mutating func update(lost: Int, total: Int, now: Int64) -> Int {
        let start = windowStart ?? now
        windowStart = start
        self.lost += lost
        self.total += total
        let fastStart = fast.start ?? now
        fast = (fastStart, fast.lost + lost, fast.total + total)
        if now - fastStart >= Self.fastWindow, fast.total >= Self.minimumPackets {
            let loss = Double(fast.lost) / Double(fast.total)
            fast = (now, 0, 0)
            if loss > Self.fastLoss {
                lastLossFraction = loss
                estimate = min(max(Int(Double(estimate) * (1 - 0.5 * loss)), minimum), maximum)
                (windowStart, self.lost, self.total) = (now, 0, 0)
                return estimate
            }
        }
        let elapsed = now - start
        guard elapsed >= Self.window, self.total >= Self.minimumPackets else { return estimate }
        let loss = Double(self.lost) / Double(self.total)
        lastLossFraction = loss
        var next = Double(estimate)
        if loss > Self.decreaseLoss {
            next *= 1 - 0.5 * loss
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
