/// Holds retransmissions to a rate, the path's estimate or what it leaves (libwebrtc's retransmission rate limiter):
/// each copy takes its size's time at the rate it is sent under, and a copy goes while what is owed stays within one
/// ``window`` ahead of now. After a loss burst a receiver asks for every packet it misses at once, and again every
/// few tens of ms until they come; answered in full, the copies went out unpaced beside the media into the queue that
/// had just dropped the originals (network-bench's bottleneck row: retransmissions alone came to more than the video
/// at the cap, the loss went on for a second and the key frame asked for took half a second to arrive). A request not
/// answered for want of time may be answered when the receiver repeats it (TokKit's NACK generator repeats for
/// about half a second), and a copy longer than a window goes once nothing is owed, the time after it paying it off.
/// What is owed is time, not bytes: when the rate falls (a cut), the copies sent before it stay paid at the rate they
/// went under; counted in bytes, a burst sent at 700 kb/s took 1.6 s to pay off at the estimator's 50 kb/s floor, and
/// the key frame answering the loss could not be repaired in that time. The window is short so that the rate is
/// spread a little too; under random loss, a few per cent of the rate, it never binds.
/// libwebrtc's limiter measures over a sliding 500 ms; like it, TokKit's peer connection has one for the whole
/// transport (simulcast layers share the rate).
///
/// A plain value with injected times (ns on any monotonic clock); no allocation. Not thread-safe: one owner calls it
/// (in TokKit the peer connection, under a lock of its own, lent to each video stream's `NACKResponder` in turn).
public struct RetransmissionRateLimiter: Sendable, Hashable {
    /// How far ahead of now what is owed may reach (ns).
    public static let window: UInt64 = 100_000_000

    /// When the copies sent so far are paid off (ns).
    private var paidUntil: UInt64 = 0

    public init() {}

    /// Whether `bytes` may be sent again at `now` for a path estimated at `rate` bits per second (nil: no estimate,
    /// no limit); counts them when so.
    public mutating func allows(_ bytes: Int, now: UInt64, rate: Int?) -> Bool {
        guard let rate else { return true }
        let start = max(paidUntil, now)
        let owed = start - now
        // Not under 1 kb/s: a copy at a rate of nothing would hold every repair back for hours.
        let cost = UInt64(max(bytes, 0)) * 8_000_000_000 / UInt64(max(rate, 1_000))
        // A copy goes whenever nothing is owed: at the estimator's floor (50 kb/s: a full-size packet takes 200 ms)
        // it would otherwise never be sent again; the time after it pays it off.
        guard owed == 0 || owed + cost <= Self.window else { return false }
        paidUntil = start + cost
        return true
    }
}
