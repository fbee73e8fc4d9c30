#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The loss-based controller of draft-ietf-rmcat-gcc-02 §6: loss over 10 % cuts the estimate to
/// `A × (1 − 0.5 × loss)`, loss under 2 % raises it by 5 %, in between it holds.
///
/// The draft runs it once per receiver report (about a second). Transport-wide feedback arrives every 50 ms, so
/// losses are counted over windows of at least ``window`` (200 ms) and ``minimumPackets``: a decrease applies
/// per window (libwebrtc decreases at most every 300 ms + RTT), the increase pro rata (1.05 per second of
/// window). Times are µs, rates bits per second. A plain value, no allocation.
public struct LossBasedController: Sendable {
    public static let window: Int64 = 200_000
    public static let minimumPackets = 10

    public let minimum: Int
    public let maximum: Int
    public private(set) var estimate: Int
    /// The loss fraction of the last complete window.
    public private(set) var lastLossFraction = 0.0
    private var windowStart: Int64?
    private var lost = 0
    private var total = 0

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
        let elapsed = now - start
        guard elapsed >= Self.window, self.total >= Self.minimumPackets else { return estimate }
        let loss = Double(self.lost) / Double(self.total)
        lastLossFraction = loss
        var next = Double(estimate)
        if loss > 0.10 {
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
