/// Polls `condition` every few milliseconds until it holds or `timeout` passes; returns whether it held.
/// Bounded in time and in iterations: the way tests wait, instead of sleeping for a fixed time.
public func eventually(timeout: Duration = .seconds(10), _ condition: () async -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    var rounds = 0
    while clock.now < deadline, rounds < 100_000 {
        if await condition() { return true }
        rounds += 1
        try? await Task.sleep(for: .milliseconds(5))
    }
    return await condition()
}
