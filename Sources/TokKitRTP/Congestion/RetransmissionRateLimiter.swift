/// Holds retransmissions to the path's estimate (libwebrtc's retransmission rate limiter): within each ``window``
/// no more bytes are sent again than the estimate carries in that time. After a loss burst a receiver asks for every
/// packet it misses at once, and again every few tens of ms until they come; answered in full, the copies went out
/// unpaced beside the media into the queue that had just dropped the originals (network-bench's bottleneck row:
/// retransmissions alone came to more than the video at the cap, the loss went on for a second and the key frame
/// asked for took half a second to arrive). A request not answered for want of budget may be answered when the
/// receiver repeats it in a later window (while its NACK generator still repeats: 10 × 20 ms in TokKit), and a
/// copy larger than a window's budget goes once nothing is owed, the windows after it paying it off. The window is
/// short so that the budget it gives is spread a little too; under random loss, a few per cent of the rate, it
/// never binds.
/// libwebrtc's limiter measures over a sliding 500 ms, one for the whole transport; this one is per video stream
/// (simulcast layers each get the whole estimate).
///
/// A plain value with injected times (ns on any monotonic clock); no allocation. Not thread-safe: one owner calls it
/// (in TokKit the peer's `NACKResponder`, under its video section's lock).
public struct RetransmissionRateLimiter: Sendable, Hashable {
    /// One budget's span (ns).
    public static let window: UInt64 = 100_000_000

    private var start: UInt64?
    private var sent = 0

    public init() {}

    /// Whether `bytes` may be sent again at `now` for a path estimated at `rate` bits per second (nil: no estimate,
    /// no limit); counts them when so.
    public mutating func allows(_ bytes: Int, now: UInt64, rate: Int?) -> Bool {
        guard let rate else { return true }
        // Bytes in a window, at least one (debt is always paid off).
        let budget = max(max(rate, 0) / Int(8_000_000_000 / Self.window), 1)
        if let begun = start {
            // Each window that has passed pays off one budget of what was sent.
            let passed = (now &- begun) / Self.window
            if passed > 0 {
                sent = passed >= UInt64(Int.max / budget) ? 0 : max(sent - Int(passed) * budget, 0)
                start = begun &+ passed * Self.window
            }
        } else {
            start = now
        }
        // A copy goes whenever nothing is owed: at the estimator's floor (50 kb/s: 625 bytes a window) a full-size
        // packet would otherwise never be sent again; what it takes over the budget is paid off by the windows after.
        guard sent == 0 || sent + bytes <= budget else { return false }
        sent += bytes
        return true
    }
}
