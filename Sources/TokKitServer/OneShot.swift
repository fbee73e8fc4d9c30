import Synchronization

/// A value delivered once, awaited once: bridges `onServerRunning` / a failed run to `start()`.
/// Thread-safe; later completions are ignored.
final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        case pending(CheckedContinuation<Result<Value, TokKitServerError>, Never>?)
        case done(Result<Value, TokKitServerError>)
    }
    private let state = Mutex<State>(.pending(nil))

    func complete(_ result: Result<Value, TokKitServerError>) {
        let waiter: CheckedContinuation<Result<Value, TokKitServerError>, Never>? = state.withLock { state in
            guard case let .pending(waiter) = state else { return nil }
            state = .done(result)
            return waiter
        }
        waiter?.resume(returning: result)
    }

    func value() async -> Result<Value, TokKitServerError> {
        await withCheckedContinuation { continuation in
            let ready: Result<Value, TokKitServerError>? = state.withLock { state in
                switch state {
                case let .done(result): return result
                case .pending:
                    state = .pending(continuation)
                    return nil
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
