/// When the server gives the memory a crowd of clients used back to the system.
///
/// glibc's malloc keeps what is freed in its arenas for reuse: after 500 clients of one session have left, the
/// server would stay at its peak size for good. The janitor asks this policy after every sweep; once the number of
/// connections has fallen well below its peak since the last trim (by a quarter of the peak and at least
/// `minimumFall`), it calls `malloc_trim(0)`, which returns the arenas' free pages. A trim takes milliseconds and
/// happens once per fall, not per departure: a steady or growing server never trims.
struct MemoryTrimPolicy {
    /// The fewest connections whose departure is worth a trim.
    let minimumFall: Int
    /// The highest connection count since the last trim.
    private(set) var peak = 0

    init(minimumFall: Int = 64) {
        self.minimumFall = minimumFall
    }

    /// Records the current connection count; true when memory should be trimmed now.
    mutating func shouldTrim(connections: Int) -> Bool {
        guard connections < peak else {
            peak = connections
            return false
        }
        guard peak - connections >= max(minimumFall, peak / 4) else { return false }
        peak = connections
        return true
    }
}
