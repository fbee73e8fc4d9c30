import Synchronization

/// One lab at a time per process: every lab attaches the test process as 198.18.0.2 with a route to the whole
/// 198.18.0.0/15, so two would collide. ``NetworkLab/start()`` takes the turn (waiting, first come first served,
/// while another lab is open) and ``NetworkLab/close()`` passes it on.
final class LabTurn: Sendable {
    static let shared = LabTurn()

    private struct State {
        var held = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.held {
                    s.waiting.append(continuation)
                    return false
                }
                s.held = true
                return true
            }
            if now { continuation.resume() }
        }
    }

    func release() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.waiting.isEmpty {
                s.held = false
                return nil
            }
            return s.waiting.removeFirst()
        }
        next?.resume()
    }
}
