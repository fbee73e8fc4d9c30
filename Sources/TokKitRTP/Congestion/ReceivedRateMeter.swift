/// The rate at which our packets reached the receiver, R_hat of draft-ietf-rmcat-gcc-02 §5.5 ("the incoming
/// bitrate measured over a T seconds window", T = 0.5 s here), from the arrival times and sizes in transport-wide
/// feedback.
///
/// Measured per feedback message and summed over the messages of the last ``window`` of receiver time: each message
/// gives the bytes of the packets it reports received and the time they took to arrive (first to last arrival, plus
/// one mean gap); R_hat is the bytes over the time. A lost feedback message then takes its bytes and its time out
/// together: over arrival-time buckets, the feedback lost on a congested way back (network-bench's bottleneck
/// caps both ways) counted as silence and halved R_hat, and β × R_hat cut the estimate to its floor. Sliding, so
/// that a bottleneck's onset shows within the window, not at its next boundary. Lost packets do not count. A plain
/// value, one thread; its ring is allocated at init.
public struct ReceivedRateMeter: Sendable {
    /// T of §5.5 (µs).
    public static let window: Int64 = 500_000
    /// Feedback messages kept (at one every 50 ms, three windows' worth).
    static let capacity = 32

    /// The rate over the last window (bits per second), nil until a whole window has been seen.
    public private(set) var bitsPerSecond: Int?
    private var bytes: [Int]
    private var spans: [Int64]
    private var ends: [Int64]
    private var head = 0
    private var count = 0
    private var firstArrival: Int64?
    private var message = (bytes: 0, packets: 0, first: Int64.max, last: Int64.min)

    public init() {
        bytes = [Int](repeating: 0, count: Self.capacity)
        spans = [Int64](repeating: 0, count: Self.capacity)
        ends = [Int64](repeating: 0, count: Self.capacity)
    }

    /// Counts a packet of `size` bytes that arrived at `arrivalTime` (µs, receiver clock), reported in the
    /// feedback message being read.
    public mutating func add(arrivalTime: Int64, size: Int) {
        message.bytes += size
        message.packets += 1
        message.first = min(message.first, arrivalTime)
        message.last = max(message.last, arrivalTime)
    }

    /// The feedback message's packets have all been added: takes it into the window and updates the rate.
    public mutating func endFeedback() {
        defer { message = (0, 0, .max, .min) }
        guard message.packets >= 2, message.last > message.first else { return }
        // A message about packets that arrived before the newest one taken (reordered, late) adds nothing new.
        if count > 0, message.last <= ends[(head + count - 1) % Self.capacity] { return }
        // n packets arrived over n − 1 gaps: one mean gap more is the time the message's bytes took.
        let span = (message.last - message.first) * Int64(message.packets) / Int64(message.packets - 1)
        if count == Self.capacity {
            head = (head + 1) % Self.capacity
            count -= 1
        }
        let slot = (head + count) % Self.capacity
        (bytes[slot], spans[slot], ends[slot]) = (message.bytes, span, message.last)
        count += 1
        // Messages that ended a window before this one are out of it.
        while count > 1, ends[head] <= message.last - Self.window {
            head = (head + 1) % Self.capacity
            count -= 1
        }
        let first = min(firstArrival ?? message.first, message.first)
        firstArrival = first
        guard message.last - first >= Self.window else { return }
        var total = 0, time: Int64 = 0
        for k in 0..<count {
            let i = (head + k) % Self.capacity
            total += bytes[i]
            time += spans[i]
        }
        bitsPerSecond = Int(Int64(total) * 8 * 1_000_000 / max(time, 1))
    }
}
