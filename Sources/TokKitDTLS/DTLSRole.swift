/// The DTLS role this side plays in the handshake (RFC 5763 §5).
///
/// Value type, usable from any thread.
public enum DTLSRole: Sendable, Hashable {
    /// Sends the ClientHello (`a=setup:active`).
    case client
    /// Waits for the ClientHello (`a=setup:passive`).
    case server
}
