/// The rate at which our packets reached the receiver, R_hat of draft-ietf-rmcat-gcc-02 §5.5 ("the incoming
/// bitrate measured over a T seconds window", T = 0.5 s here), from the arrival times and sizes in transport-wide
/// feedback.
///
/// A sliding window: arrivals are counted in ``bucketWidth`` (50 ms) buckets of receiver time, and the rate is what
/// the last ``window`` of buckets holds over the time those with reports in them cover (the newest up to the newest
/// arrival), updated with every packet. (Consecutive 500 ms windows left R_hat up to a window stale: at a bottleneck's onset the
/// delay-based controller decreased to β × the rate from before it, then had nothing lower to go by for another
/// half second.) Lost packets do not count; packets older than the window are ignored. A plain value, one thread;
/// the buckets are allocated at init.
public struct ReceivedRateMeter: Sendable {
    /// T of §5.5 (µs).
    public static let window: Int64 = 500_000
    /// One bucket of the window (µs).
    public static let bucketWidth: Int64 = 50_000
    static let bucketCount = Int(window / bucketWidth)

    /// The rate over the last window (bits per second), nil until a whole window has been seen.
    public private(set) var bitsPerSecond: Int?
    private var buckets: [Int]
    /// The number (arrival time / ``bucketWidth``) of the newest bucket.
    private var newest: Int64?
    private var firstArrival: Int64 = 0

    public init() {
        buckets = [Int](repeating: 0, count: Self.bucketCount)
    }

    /// Counts a packet of `size` bytes that arrived at `arrivalTime` (µs, receiver clock).
    public mutating func add(arrivalTime: Int64, size: Int) {
        let number = Self.floorDivide(arrivalTime, Self.bucketWidth)
        guard let current = newest else {
            newest = number
            firstArrival = arrivalTime
            buckets[Self.slot(number)] = size
            return
        }
        if number > current {
            // Empty the buckets between the newest and this one (all of them after a long silence).
            var n = current + 1
            while n <= number && n <= current + Int64(Self.bucketCount) {
                buckets[Self.slot(n)] = 0
                n += 1
            }
            newest = number
        } else if number <= current - Int64(Self.bucketCount) {
            return  // older than the window
        }
        buckets[Self.slot(number)] += size
        let newestStart = newest! * Self.bucketWidth
        guard arrivalTime - firstArrival >= Self.window, arrivalTime > newestStart else { return }
        // Over the buckets that hold reports only: a lost feedback message leaves its 50 ms empty, and counting
        // that as a pause halved R_hat when the feedback crossed a congested link too (network-bench's bottleneck
        // caps both ways), and β × R_hat cut the estimate to the floor. The newest bucket counts as far as now.
        var bytes = 0, covered: Int64 = 0
        for b in buckets where b > 0 {
            bytes += b
            covered += Self.bucketWidth
        }
        covered += arrivalTime - newestStart - Self.bucketWidth  // the newest bucket: only its elapsed part
        bitsPerSecond = Int(Int64(bytes) * 8 * 1_000_000 / max(covered, 1))
    }

    private static func slot(_ number: Int64) -> Int { Int(((number % Int64(bucketCount)) + Int64(bucketCount)) % Int64(bucketCount)) }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
}
