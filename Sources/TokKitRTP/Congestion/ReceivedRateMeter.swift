/// The rate at which our packets reached the receiver, R_hat of draft-ietf-rmcat-gcc-02 §5.5 ("the incoming
/// bitrate measured over a T seconds window", T = 0.5 s here), from the arrival times and sizes in transport-wide
/// feedback.
///
/// Consecutive windows of ``window`` of receiver time: when a packet arrives past the end of the current window
/// the window's bytes over its span become the rate. Lost packets do not count. A plain value, no allocation.
public struct ReceivedRateMeter: Sendable {
    /// T of §5.5 (µs).
    public static let window: Int64 = 500_000

    /// The last complete window's rate in bits per second, nil before the first.
    public private(set) var bitsPerSecond: Int?
    private var start: Int64?
    private var bytes = 0

    public init() {}

    /// Counts a packet of `size` bytes that arrived at `arrivalTime` (µs, receiver clock).
    public mutating func add(arrivalTime: Int64, size: Int) {
        guard let start, arrivalTime >= start else {
            self.start = arrivalTime
            bytes = size
            return
        }
        let span = arrivalTime - start
        if span >= Self.window {
            bitsPerSecond = Int(Int64(bytes) * 8 * 1_000_000 / span)
            self.start = arrivalTime
            bytes = size
        } else {
            bytes += size
        }
    }
}
