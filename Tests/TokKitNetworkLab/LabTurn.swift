import Synchronization

/// One lab at a time per process: every lab attaches the test process as 198.18.0.2 with a route to the whole
/// 198.18.0.0/15, so two would collide. ``NetworkLab/start()`` takes the turn (waiting while another lab is open,
/// at most ``timeout``) and ``NetworkLab/close()`` gives it back.
final class LabTurn: Sendable {
    static let shared = LabTurn()
    /// The longest a lab waits for the previous one to close (a test that never closes its lab fails the next).
    static let timeout: Duration = .seconds(600)

    private let held = Mutex(false)

    func acquire() async throws(LabError) {
        let deadline = ContinuousClock.now + Self.timeout
        while !held.withLock({ h in h ? false : { h = true; return true }() }) {
            guard ContinuousClock.now < deadline else { throw .timedOut("another network lab stayed open") }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    func release() {
        held.withLock { $0 = false }
    }
}
