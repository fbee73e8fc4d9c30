import CSRTP

/// Why an SRTP operation failed: libsrtp's `srtp_err_status_t` mapped to cases, plus the wrapper's own checks.
///
/// Value type, usable from any thread.
public enum SRTPError: Error, Sendable, Hashable {
    /// The authentication tag did not verify: the packet was tampered with or keyed differently.
    case authenticationFailed
    /// The packet index was already received (replay protection, RFC 3711 §3.3.2).
    case replayed
    /// The packet index lies before the replay window.
    case tooOld
    /// The packet is not a well-formed RTP/RTCP packet (or shorter than its own header says).
    case malformedPacket
    /// The buffer cannot hold the protected packet: `needed` bytes are required.
    case bufferTooSmall(needed: Int)
    /// Keying material of the wrong size for the profile.
    case invalidKeyingMaterial(expected: Int, got: Int)
    /// libsrtp rejected a parameter.
    case badParameter
    /// libsrtp could not allocate memory.
    case allocationFailed
    /// libsrtp failed to initialise (`srtp_init` or a cipher self-test).
    case initializationFailed
    /// The cipher failed.
    case cipherFailed
    /// Another `srtp_err_status_t`, by value.
    case status(Int32)

    /// Maps a non-OK libsrtp status.
    init(_ status: srtp_err_status_t) {
        switch status {
        case srtp_err_status_auth_fail: self = .authenticationFailed
        case srtp_err_status_replay_fail: self = .replayed
        case srtp_err_status_replay_old: self = .tooOld
        case srtp_err_status_bad_param: self = .badParameter
        case srtp_err_status_alloc_fail: self = .allocationFailed
        case srtp_err_status_init_fail, srtp_err_status_algo_fail: self = .initializationFailed
        case srtp_err_status_cipher_fail: self = .cipherFailed
        case srtp_err_status_parse_err: self = .malformedPacket
        default: self = .status(Int32(bitPattern: status.rawValue))
        }
    }
}

/// Throws the mapped error unless `status` is `srtp_err_status_ok`.
@inline(__always)
func check(_ status: srtp_err_status_t) throws(SRTPError) {
    if status != srtp_err_status_ok { throw SRTPError(status) }
}
