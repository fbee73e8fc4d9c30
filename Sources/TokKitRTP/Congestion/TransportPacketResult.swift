/// What transport-wide feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1) says about one packet we
/// sent, joined with what we recorded when we sent it: the input of ``SendSideBandwidthEstimator``.
///
/// Times are microseconds. `sendTime` is on the sender's clock, `arrivalTime` on the receiver's (the feedback's
/// reference time plus receive deltas): only differences between packets of the same clock are meaningful.
/// Value type, usable from any thread.
public struct TransportPacketResult: Hashable, Sendable {
    /// The transport-wide sequence number.
    public var sequenceNumber: UInt16
    /// When we sent it (µs, sender clock).
    public var sendTime: Int64
    /// When it arrived (µs, receiver clock), nil when the receiver reported it not received.
    public var arrivalTime: Int64?
    /// The packet's size on the wire as we counted it: RTP header, extensions and payload (bytes).
    public var size: Int

    public init(sequenceNumber: UInt16, sendTime: Int64, arrivalTime: Int64?, size: Int) {
        self.sequenceNumber = sequenceNumber
        self.sendTime = sendTime
        self.arrivalTime = arrivalTime
        self.size = size
    }
}
