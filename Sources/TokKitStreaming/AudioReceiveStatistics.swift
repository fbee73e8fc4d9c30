/// A snapshot of an ``AudioReceivePipeline``'s counters.
///
/// Value type, usable from any thread.
public struct AudioReceiveStatistics: Hashable, Sendable {
    /// RTP packets taken from the network.
    public var packetsReceived = 0
    /// Opus packets decoded.
    public var packetsDecoded = 0
    /// Missing packets recovered from the next packet's in-band FEC (its LBRR data): decoded audio, not
    /// concealment (as WebRTC counts them).
    public var packetsRecovered = 0
    /// Missing packets concealed (Opus packet-loss concealment, the next packet carrying no redundancy or not
    /// there): WebRTC's concealed samples, in 20 ms frames.
    public var packetsConcealed = 0
    /// Packets dropped: late, duplicate, undecodable, or arrived while disabled.
    public var packetsDropped = 0
    /// 10 ms periods mixed into the output.
    public var periodsMixed = 0

    public init() {}
}
