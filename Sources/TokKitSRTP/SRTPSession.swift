import CSRTP

/// One libsrtp session (`srtp_t`) for one direction, keyed with one ``SRTPKeyingMaterial`` for any SSRC.
///
/// Packets are transformed in place in the caller's buffer: nothing is allocated per packet. Replay
/// protection is always on for inbound sessions (window of ``replayWindow`` packets): a replayed packet
/// throws ``SRTPError/replayed`` and must be dropped.
///
/// Threading: not thread-safe. Use a session from one thread at a time (a sender thread for the outbound
/// session, the network thread for the inbound one); it is not `Sendable`, so put it behind a `Mutex` to
/// share it.
public final class SRTPSession {
    /// Which way the session's packets travel.
    public enum Direction: Sendable {
        /// Protects packets this side sends.
        case outbound
        /// Unprotects packets this side receives.
        case inbound
    }

    /// The replay window in packets (RFC 3711 §3.3.2; libwebrtc uses 1024 too).
    public static let replayWindow = 1024

    /// The profile the session was keyed for.
    public let profile: SRTPProfile
    /// The direction the session serves.
    public let direction: Direction
    private let session: srtp_t

    /// Creates a session keyed with `material`. Outbound sessions allow retransmitting a packet with the same
    /// sequence number (NACK resends), as libwebrtc does.
    public init(material: SRTPKeyingMaterial, direction: Direction) throws(SRTPError) {
        try SRTPLibrary.ensureInitialized()
        let profileID: srtp_profile_t = switch material.profile {
        case .aes128CmSha1_80: srtp_profile_aes128_cm_sha1_80
        case .aeadAes128Gcm: srtp_profile_aead_aes_128_gcm
        }
        var policy = srtp_policy_t()
        try check(srtp_crypto_policy_set_from_profile_for_rtp(&policy.rtp, profileID))
        try check(srtp_crypto_policy_set_from_profile_for_rtcp(&policy.rtcp, profileID))
        policy.ssrc.type = direction == .outbound ? ssrc_any_outbound : ssrc_any_inbound
        policy.window_size = UInt(Self.replayWindow)
        policy.allow_repeat_tx = direction == .outbound ? 1 : 0
        var keyAndSalt = material.keyAndSalt
        var created: srtp_t?
        let status = keyAndSalt.withUnsafeMutableBufferPointer { key in
            policy.key = key.baseAddress
            return srtp_create(&created, &policy)
        }
        // libsrtp copied the key into its own context; wipe our copy.
        for i in keyAndSalt.indices { keyAndSalt[i] = 0 }
        try check(status)
        guard let created else { throw .allocationFailed }
        self.session = created
        self.profile = material.profile
        self.direction = direction
    }

    deinit { srtp_dealloc(session) }

    /// Protects the RTP packet in `buffer[0..<length]` in place and returns the SRTP length
    /// (`length + profile.rtpOverhead`); `buffer` must have room for it.
    public func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard RTPHeaderCheck.rtp(buffer, length: length) else { throw .malformedPacket }
        let needed = length + profile.rtpOverhead
        guard buffer.count >= needed else { throw .bufferTooSmall(needed: needed) }
        var len = Int32(length)
        try check(srtp_protect(session, buffer.baseAddress, &len))
        return Int(len)
    }

    /// Verifies and decrypts the SRTP packet in `buffer[0..<length]` in place; returns the RTP length.
    public func unprotectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard RTPHeaderCheck.rtp(buffer, length: length), length >= 12 + profile.rtpOverhead else {
            throw .malformedPacket
        }
        var len = Int32(length)
        try check(srtp_unprotect(session, buffer.baseAddress, &len))
        return Int(len)
    }

    /// Protects the RTCP compound packet in `buffer[0..<length]` in place and returns the SRTCP length
    /// (`length + profile.rtcpOverhead`); `buffer` must have room for it.
    public func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard RTPHeaderCheck.rtcp(buffer, length: length) else { throw .malformedPacket }
        let needed = length + profile.rtcpOverhead
        guard buffer.count >= needed else { throw .bufferTooSmall(needed: needed) }
        var len = Int32(length)
        try check(srtp_protect_rtcp(session, buffer.baseAddress, &len))
        return Int(len)
    }

    /// Verifies and decrypts the SRTCP packet in `buffer[0..<length]` in place; returns the RTCP length.
    public func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard RTPHeaderCheck.rtcp(buffer, length: length), length >= 8 + profile.rtcpOverhead else {
            throw .malformedPacket
        }
        var len = Int32(length)
        try check(srtp_unprotect_rtcp(session, buffer.baseAddress, &len))
        return Int(len)
    }
}
