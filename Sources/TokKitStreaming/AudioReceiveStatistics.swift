/// A snapshot of an ``AudioReceivePipeline``'s counters.
///
/// Value type, usable from any thread.
public struct AudioReceiveStatistics: Hashable, Sendable {
    /// RTP packets taken from the network.
    public var packetsReceived = 0
    /// Opus packets decoded.
    public var packetsDecoded = 0
    /// Missing packets recovered: from the next packet's in-band FEC (its LBRR data), or from an RFC 2198 redundant
    /// copy (``packetsRecoveredFromRedundancy``): decoded audio, not concealment (as WebRTC counts them).
    public var packetsRecovered = 0
    /// Of ``packetsRecovered``, those decoded from a redundant copy in a later RED packet.
    public var packetsRecoveredFromRedundancy = 0
    /// RTP packets in the negotiated RED format (RFC 2198), of ``packetsReceived``.
    public var redundantPacketsReceived = 0
    /// RED packets whose block headers did not fit the payload (dropped, also counted in ``packetsDropped``).
    public var malformedRedundantPackets = 0
    /// Missing packets concealed (Opus packet-loss concealment, the next packet carrying no redundancy or not
    /// there): WebRTC's concealed samples, in 20 ms frames.
    public var packetsConcealed = 0
    /// Packets dropped: late, duplicate, undecodable, or arrived while disabled.
    public var packetsDropped = 0
    /// 20 ms intervals played from Opus concealment to add delay for lip sync (``AudioReceivePipeline/synchronize(with:)``):
    /// stretching, not loss; not in ``packetsConcealed``.
    public var packetsHeldForSync = 0
    /// Lip sync (``AudioReceivePipeline/synchronize(with:)``): the extra delay the audio plays with to follow the
    /// video, and the last measured lag of the video behind the audio without it (nil before a measurement).
    public var syncDelay: Duration = .zero
    public var syncLag: Duration?
    /// 10 ms periods mixed into the output.
    public var periodsMixed = 0

    public init() {}
}
