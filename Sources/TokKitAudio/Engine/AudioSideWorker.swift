/// The per-period work of one side (capture or render) of a device: what an ``AudioDeviceSide`` runs.
///
/// ``willStart()`` and ``didStop()`` are called on the control thread while no data thread runs;
/// ``transferPeriod(_:)`` only on the side's data thread.
protocol AudioSideWorker: AnyObject, Sendable {
    /// Gets ready to run (prepare the PCM, ...). Throwing keeps the side stopped.
    func willStart() throws(AudioDeviceError)
    /// Moves one period between the source or sink and `bus`; returns false when there was none to move yet (a
    /// wait timed out). Throwing stops the side and is reported through ``AudioDeviceSide/failure``.
    func transferPeriod(_ bus: (any AudioBus)?) throws(AudioDeviceError) -> Bool
    /// Cleans up after a run (drop the PCM, fix a file header).
    func didStop()
}

extension AudioSideWorker {
    func willStart() throws(AudioDeviceError) {}
    func didStop() {}
}
