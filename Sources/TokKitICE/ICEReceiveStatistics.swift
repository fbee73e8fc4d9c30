/// What an agent's receive path did about batching (``ICEConfiguration/receiveBatching``): how its network thread
/// slept and how the datagrams it delivered were timed. Zeros without batching.
public struct ICEReceiveStatistics: Sendable, Equatable {
    /// Waits for the network put off to batch datagrams (sleeps begun).
    public var batchingSleeps: Int
    /// Of those, the sleeps that work handed to the network thread ended early (a timer or task scheduled from
    /// another thread, ``ICEAgent/perform(_:)``, ``ICEAgent/close()``).
    public var sleepsEndedByWakeup: Int
    /// Datagrams whose arrival time is the kernel's receive timestamp (``ICEAgent/receivedDatagramArrival``).
    public var kernelTimedDatagrams: Int
    /// Datagrams whose arrival time is the clock when they were handled (no pair selected yet, a selected TURN relay
    /// candidate, for which libnice gives no socket, a datagram of another socket than the selected pair's, or a
    /// stamp that failed a check).
    public var clockTimedDatagrams: Int

    public init(batchingSleeps: Int = 0, sleepsEndedByWakeup: Int = 0, kernelTimedDatagrams: Int = 0,
                clockTimedDatagrams: Int = 0) {
        self.batchingSleeps = batchingSleeps
        self.sleepsEndedByWakeup = sleepsEndedByWakeup
        self.kernelTimedDatagrams = kernelTimedDatagrams
        self.clockTimedDatagrams = clockTimedDatagrams
    }
}
