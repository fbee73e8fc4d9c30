import Synchronization

/// One side (capture or render) of a device: its control state and the named data thread that moves one
/// period per tick while it runs.
///
/// State: *uninitialized → initialized (worker exists) → running (thread exists)*, and back with ``stop()``
/// (to initialized) or ``release()`` (to uninitialized). Transitions happen under a lock on the control
/// thread; the data thread never takes that lock (it shares only ``Counters`` and the bus slot).
///
/// A worker failure ends the data thread: ``isRunning`` turns false at once, ``failure`` tells why, and the
/// next ``stop()`` cleans up. ``stop()`` must not be called from inside a bus callback (it would only ask the
/// thread to end, and clean up while the thread is still in its tick).
final class AudioDeviceSide<Worker: AudioSideWorker>: Sendable {
    /// What the data thread shares with the control side: lock-free counters and the failure, if any.
    final class Counters: Sendable {
        let periods = Atomic<Int>(0)
        let failed = Atomic<Bool>(false)
        let failure = Mutex<AudioDeviceError?>(nil)

        func fail(_ error: AudioDeviceError) {
            failure.withLock { $0 = error }
            failed.store(true, ordering: .releasing)
        }
    }

    private enum Driver: Sendable {
        case clock(PeriodicThread)
        case device(MediaThread)

        func stop() {
            switch self {
            case let .clock(t): t.stop()
            case let .device(t): t.stop()
            }
        }
    }

    private enum State: Sendable {
        case uninitialized
        case initialized(Worker)
        case running(Worker, Driver)
    }

    let counters = Counters()
    private let state = Mutex(State.uninitialized)
    private let threadName: String
    private let pacing: AudioPacing
    private let bus: AudioBusSlot

    /// A side whose data thread is called `threadName` (15 bytes kept), paced as `pacing`, exchanging with `bus`.
    init(threadName: String, pacing: AudioPacing, bus: AudioBusSlot) {
        self.threadName = threadName
        self.pacing = pacing
        self.bus = bus
    }

    deinit { stop() }

    /// Creates the worker with `make` unless the side is already initialized (then does nothing).
    func initialize(_ make: () throws(AudioDeviceError) -> Worker) throws(AudioDeviceError) {
        try state.withLock { s throws(AudioDeviceError) in
            guard case .uninitialized = s else { return }
            s = .initialized(try make())
        }
    }

    /// Starts the data thread. Throws ``AudioDeviceError/notInitialized`` before ``initialize(_:)``; does
    /// nothing while running.
    func start() throws(AudioDeviceError) {
        // A run that failed on its own is cleaned up first, so it can start again.
        if counters.failed.load(ordering: .acquiring) { stop() }
        try state.withLock { s throws(AudioDeviceError) in
            switch s {
            case .uninitialized:
                throw .notInitialized
            case .running:
                return
            case let .initialized(worker):
                try worker.willStart()
                counters.failure.withLock { $0 = nil }
                counters.failed.store(false, ordering: .releasing)
                s = .running(worker, makeDriver(worker))
            }
        }
    }

    /// Stops the data thread and waits for it; when this returns, no bus call from this side is running or will
    /// follow. Does nothing when not running.
    func stop() {
        let run: (Worker, Driver)? = state.withLock { s in
            guard case let .running(worker, driver) = s else { return nil }
            s = .initialized(worker)
            return (worker, driver)
        }
        guard let (worker, driver) = run else { return }
        driver.stop()
        worker.didStop()
    }

    /// Stops, then drops the worker (closing what it holds): back to uninitialized.
    func release() {
        stop()
        state.withLock { $0 = .uninitialized }
    }

    /// Whether a worker exists.
    var isInitialized: Bool {
        state.withLock { s in if case .uninitialized = s { false } else { true } }
    }

    /// Whether the data thread runs and has not failed.
    var isRunning: Bool {
        let running = state.withLock { s in if case .running = s { true } else { false } }
        return running && !counters.failed.load(ordering: .acquiring)
    }

    /// Why the last run ended on its own, if it did.
    var failure: AudioDeviceError? { counters.failure.withLock { $0 } }

    /// The worker, if initialized.
    var worker: Worker? {
        state.withLock { s in
            switch s {
            case .uninitialized: nil
            case let .initialized(w), let .running(w, _): w
            }
        }
    }

    private func makeDriver(_ worker: Worker) -> Driver {
        let bus = self.bus
        let counters = self.counters
        switch pacing {
        case .clock:
            return .clock(PeriodicThread(name: threadName, interval: AudioFormat.period) {
                do throws(AudioDeviceError) {
                    if try worker.transferPeriod(bus.current) { counters.periods.add(1, ordering: .relaxed) }
                    return true
                } catch {
                    counters.fail(error)
                    return false
                }
            })
        case .device:
            return .device(MediaThread(name: threadName) { me in
                while !me.isStopping {
                    do throws(AudioDeviceError) {
                        if try worker.transferPeriod(bus.current) { counters.periods.add(1, ordering: .relaxed) }
                    } catch {
                        counters.fail(error)
                        return
                    }
                }
            })
        }
    }
}
