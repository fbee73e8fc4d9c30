import Synchronization

/// Counters of a device since it was created, read at any time from any thread (each counter is read atomically,
/// the set is not a snapshot).
public struct AudioDeviceStatistics: Sendable, Hashable {
    /// 10 ms periods handed to the bus by the capture side.
    public var capturedPeriods = 0
    /// 10 ms periods taken from the bus by the render side.
    public var renderedPeriods = 0
    /// Capture overruns (the device had to drop audio because it was not read in time), each recovered.
    public var captureOverruns = 0
    /// Render underruns (the device ran dry), each recovered.
    public var renderUnderruns = 0

    /// All counters at zero.
    public init() {}
}

extension AudioDeviceStatistics {
    /// The periods each side has moved so far (xruns left at 0: only a hardware device counts them).
    init<Capture, Render>(capture: AudioDeviceSide<Capture>, render: AudioDeviceSide<Render>) {
        capturedPeriods = capture.counters.periods.load(ordering: .relaxed)
        renderedPeriods = render.counters.periods.load(ordering: .relaxed)
    }
}
