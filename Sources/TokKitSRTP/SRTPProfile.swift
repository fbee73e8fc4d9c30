/// An SRTP protection profile negotiated by DTLS-SRTP (RFC 5764 §4.1.2, RFC 7714 §14.2).
///
/// Value type, immutable, usable from any thread.
public enum SRTPProfile: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// AES-128 counter mode with an 80-bit HMAC-SHA1 tag (`SRTP_AES128_CM_HMAC_SHA1_80`, 0x0001).
    case aes128CmSha1_80
    /// AES-128 GCM with a 128-bit tag (`SRTP_AEAD_AES_128_GCM`, 0x0007).
    case aeadAes128Gcm

    /// Master key length in bytes.
    public var keyLength: Int { 16 }

    /// Master salt length in bytes.
    public var saltLength: Int {
        switch self {
        case .aes128CmSha1_80: 14
        case .aeadAes128Gcm: 12
        }
    }

    /// Bytes of one direction's keying material: key followed by salt.
    public var masterKeyLength: Int { keyLength + saltLength }

    /// Bytes ``SRTPSession/protectRTP(_:length:)`` appends (the authentication tag).
    public var rtpOverhead: Int {
        switch self {
        case .aes128CmSha1_80: 10
        case .aeadAes128Gcm: 16
        }
    }

    /// Bytes ``SRTPSession/protectRTCP(_:length:)`` appends (E flag + SRTCP index, then the tag).
    public var rtcpOverhead: Int { 4 + rtpOverhead }

    /// The two-byte identifier registered for the DTLS `use_srtp` extension.
    public var protectionProfileID: UInt16 {
        switch self {
        case .aes128CmSha1_80: 0x0001
        case .aeadAes128Gcm: 0x0007
        }
    }

    /// The profile with that `use_srtp` identifier, or `nil` when TokKit does not support it.
    public init?(protectionProfileID id: UInt16) {
        switch id {
        case 0x0001: self = .aes128CmSha1_80
        case 0x0007: self = .aeadAes128Gcm
        default: return nil
        }
    }

    /// The profile name OpenSSL's `SSL_CTX_set_tlsext_use_srtp` expects.
    public var openSSLName: String {
        switch self {
        case .aes128CmSha1_80: "SRTP_AES128_CM_SHA1_80"
        case .aeadAes128Gcm: "SRTP_AEAD_AES_128_GCM"
        }
    }

    public var description: String { openSSLName }
}
