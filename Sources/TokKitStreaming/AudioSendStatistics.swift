/// A snapshot of an ``AudioSendPipeline``'s counters.
///
/// Value type, usable from any thread.
public struct AudioSendStatistics: Hashable, Sendable {
    /// 48 kHz frames (samples per channel) written by the capture side.
    public var framesCaptured = 0
    /// Opus packets encoded for sending (20 ms each), once however many peers are attached.
    public var packetsEncoded = 0
    /// With DTX: 20 ms frames encoded as silence and not sent (not counted in ``packetsEncoded``).
    public var packetsSuppressed = 0
    /// The packet loss, in percent, the encoder's in-band FEC is planned for: 5 until a receiver reports, then
    /// following the worst loss reported (0, 1, 5, 10 or 20).
    public var expectedPacketLoss = 0
    /// Encoded bytes.
    public var bytesEncoded: UInt64 = 0
    /// RTP packets sent, summed over peers.
    public var packetsSent = 0
    /// `sendRTP` calls that failed (peer not connected yet, closed) and encoder errors.
    public var sendErrors = 0
    /// Peers currently attached.
    public var peers = 0

    public init() {}
}
