/// The state of a ``DTLSTransport``, named as in `RTCDtlsTransportState`.
///
/// Value type, usable from any thread.
public enum DTLSTransportState: Sendable, Hashable {
    /// Created, handshake not started.
    case new
    /// Handshake in progress.
    case connecting
    /// Handshake done, peer verified, SRTP keyed: media flows.
    case connected
    /// Closed by either side (close_notify). Terminal.
    case closed
    /// Handshake failed or the peer's certificate did not match its fingerprint; no keys exist.
    case failed
}
