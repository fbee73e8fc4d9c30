import TokKitICE

/// Notices when one of this machine's addresses goes away (a host changing networks, a lease lost, an interface
/// down), by looking at the local addresses once a second, and tells its session: the signaling socket and the
/// media paths bound to that address are dead even if no timeout has said so yet.
///
/// Threading: one task (control plane) until ``stop()`` or the session is gone; the callback runs on that task
/// and must return quickly.
final class NetworkChangeMonitor: Sendable {
    static let period: Duration = .seconds(1)
    private let task: Task<Void, Never>

    /// Starts watching; `lost` gets the addresses that disappeared since the previous look.
    init(lost: @escaping @Sendable (Set<String>) -> Void) {
        task = Task {
            var known = LocalAddresses.current()
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.period)
                let now = LocalAddresses.current()
                let gone = known.subtracting(now)
                known = now
                if !gone.isEmpty { lost(gone) }
            }
        }
    }

    func stop() { task.cancel() }

    deinit { task.cancel() }
}
