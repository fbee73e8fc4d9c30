/// Video freezes as WebRTC and the W3C statistics define them: the interval between two rendered frames is a
/// freeze when it is at least max(3 × the mean, the mean + 150 ms), the mean taken over the last 30 intervals
/// before it (`RTCInboundRtpStreamStats.freezeCount` / `totalFreezesDuration`).
///
/// A pure value fed with render times (an injectable clock: tests pass their own); not thread-safe, owned by the
/// thread that renders. Nothing is allocated per frame (a fixed ring of 30 intervals).
public struct FreezeDetector: Sendable {
    /// Intervals in the moving mean.
    public static let window = 30
    /// A freeze lasts at least this much more than the mean.
    public static let minimumExcess: Duration = .milliseconds(150)

    /// Freezes so far.
    public private(set) var freezeCount = 0
    /// The sum of the frozen intervals.
    public private(set) var totalFreezesDuration: Duration = .zero
    /// The sum of all intervals between rendered frames (the freezes' share of it is the freeze ratio).
    public private(set) var totalFramesDuration: Duration = .zero

    private var last: Duration?
    private var ring = (Duration.zero, 0)  // (sum of the intervals in the window, how many)
    private var intervals = [Duration](repeating: .zero, count: FreezeDetector.window)
    private var next = 0

    public init() {}

    /// A frame was rendered at `time` (any monotonic clock, the same for every call).
    public mutating func frameRendered(at time: Duration) {
        defer { last = time }
        guard let last, time > last else { return }
        let interval = time - last
        totalFramesDuration += interval
        if ring.1 > 0 {
            let mean = ring.0 / ring.1
            if interval >= max(mean * 3, mean + Self.minimumExcess) {
                freezeCount += 1
                totalFreezesDuration += interval
            }
        }
        // The window slides over every interval, frozen ones too (as WebRTC's).
        if ring.1 == Self.window { ring.0 -= intervals[next] } else { ring.1 += 1 }
        intervals[next] = interval
        ring.0 += interval
        next = (next + 1) % Self.window
    }

    /// The share of the time video was frozen, 0...1.
    public var freezeRatio: Double {
        totalFramesDuration > .zero ? totalFreezesDuration / totalFramesDuration : 0
    }
}
