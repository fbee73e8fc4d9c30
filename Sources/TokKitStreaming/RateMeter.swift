import TokKitMedia

/// Frames and bits per second over the last whole second, updated by one thread per event.
///
/// A plain value owned by its data-plane thread; allocation-free.
struct RateMeter {
    private var windowStart: Duration = .zero
    private var frames = 0
    private var bytes = 0
    private(set) var framesPerSecond: Double = 0
    private(set) var bitsPerSecond: Double = 0

    /// Counts one event of `byteCount` bytes at `now`; returns true when the rates were refreshed.
    @discardableResult
    mutating func record(bytes byteCount: Int, at now: Duration) -> Bool {
        if windowStart == .zero { windowStart = now }
        frames += 1
        bytes += byteCount
        let elapsed = (now - windowStart).seconds
        guard elapsed >= 1 else { return false }
        framesPerSecond = Double(frames) / elapsed
        bitsPerSecond = Double(bytes * 8) / elapsed
        windowStart = now
        frames = 0
        bytes = 0
        return true
    }
}
