import TokKitICE
import TokKitSRTP

/// Why a DTLS-SRTP operation failed.
///
/// Value type, usable from any thread.
public enum DTLSError: Error, Sendable, Hashable {
    /// OpenSSL failed in `function`; `reason` is the first queued OpenSSL error, if any.
    case openSSL(function: String, reason: String)
    /// A fingerprint attribute that is not `<hash> <hex:hex:…>` with a supported hash.
    case invalidFingerprint(String)
    /// Both sides asked for the same DTLS role (`a=setup` values that do not match, RFC 5763 §5).
    case incompatibleSetup
    /// The handshake failed (alert, timeout or protocol error); `reason` says why.
    case handshakeFailed(reason: String)
    /// The peer's certificate does not match the fingerprint from its SDP.
    case fingerprintMismatch
    /// The peer selected no SRTP profile, or one TokKit did not offer.
    case noSRTPProfile
    /// The transport is not connected yet (no keys).
    case notConnected
    /// The transport is closed.
    case closed
    /// The ICE layer failed.
    case ice(ICEError)
    /// The SRTP layer failed.
    case srtp(SRTPError)
}
