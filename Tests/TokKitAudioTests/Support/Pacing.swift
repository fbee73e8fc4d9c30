import Testing
import TokKitMedia

/// Runs a started side until `count()` reaches `periods` (bounded by `timeout`), stops it, and checks that a
/// clock-paced side kept to one period per 10 ms: never faster (the count can only fall behind under load), and
/// it did get there. Loose bounds on purpose: this checks pacing, not speed.
func expectClockPaced(
    periods: Int, timeout: Duration = .seconds(20),
    start: () throws -> Void, stop: () -> Void, count: () -> Int,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let t0 = MonotonicClock.now()
    try start()
    let reached = poll(timeout: timeout) { count() >= periods }
    let reachedAfter = MonotonicClock.now() - t0
    stop()
    let stoppedAfter = MonotonicClock.now() - t0
    let total = count()
    #expect(reached, "only \(total) of \(periods) periods within \(timeout)", sourceLocation: sourceLocation)
    // The first period is immediate, each next one 10 ms later: n periods need at least (n - 1) × 10 ms.
    #expect(reachedAfter >= .milliseconds(10 * (periods - 1) - 2),
            "\(periods) periods after only \(reachedAfter): not paced", sourceLocation: sourceLocation)
    #expect(Duration.milliseconds(10) * (total - 1) <= stoppedAfter + .milliseconds(2),
            "\(total) periods in \(stoppedAfter): faster than real time", sourceLocation: sourceLocation)
}
