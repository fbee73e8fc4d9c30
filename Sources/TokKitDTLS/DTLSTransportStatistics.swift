/// Counters of a ``DTLSTransport``'s media receive path.
///
/// Value type (a snapshot), usable from any thread.
public struct DTLSTransportStatistics: Sendable, Hashable {
    /// RTP packets decrypted and handed to the media handler.
    public var rtpReceived = 0
    /// RTCP packets decrypted and handed to the media handler.
    public var rtcpReceived = 0
    /// Packets whose authentication tag did not verify (dropped).
    public var authenticationFailures = 0
    /// Replayed or too old packets (dropped).
    public var replays = 0
    /// Media packets that arrived with no SRTP keys (before the handshake, after failure or close).
    public var droppedWithoutKeys = 0
    /// Malformed or otherwise undecryptable packets (dropped).
    public var malformed = 0
    /// Media datagrams dropped by the loss-injection seam (``DTLSTransport/setReceiveDropFilter(_:)``, tests).
    public var droppedByFilter = 0
}
