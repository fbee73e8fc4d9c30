/// A snapshot of an ``AudioReceivePipeline``'s counters.
///
/// Value type, usable from any thread.
public struct AudioReceiveStatistics: Hashable, Sendable {
    /// RTP packets taken from the network.
    public var packetsReceived = 0
    /// Opus packets decoded.
    public var packetsDecoded = 0
    /// 20 ms frames concealed (FEC from the next packet, or PLC) because a packet was missing.
    public var packetsConcealed = 0
    /// Packets dropped: late, duplicate, undecodable, or arrived while disabled.
    public var packetsDropped = 0
    /// 10 ms periods mixed into the output.
    public var periodsMixed = 0

    public init() {}
}
