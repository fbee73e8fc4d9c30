import COpenSSL

/// A self-signed ECDSA P-256 certificate and its private key: the identity one peer uses for DTLS, announced
/// in SDP by its ``fingerprint``.
///
/// Threading: immutable after creation and usable from any thread (OpenSSL reference-counts the key and
/// certificate and only reads them when an `SSL_CTX` takes them), hence `@unchecked Sendable`.
public final class DTLSCertificate: @unchecked Sendable {
    /// The SHA-256 fingerprint for `a=fingerprint`.
    public let fingerprint: DTLSFingerprint
    let key: OpaquePointer    // EVP_PKEY *
    let x509: OpaquePointer   // X509 *

    /// Generates a fresh key pair and a certificate valid from a day ago for `validityDays` days, with a
    /// random serial number and common name `commonName`, signed with ECDSA-SHA256.
    public init(commonName: String = "TokKit", validityDays: Int = 30) throws(DTLSError) {
        guard let key = tk_ec_p256_keygen() else { throw OpenSSLError.error("EVP_EC_gen") }
        guard let x509 = X509_new() else {
            EVP_PKEY_free(key)
            throw OpenSSLError.error("X509_new")
        }
        do {
            try Self.fill(x509, key: key, commonName: commonName, validityDays: validityDays)
            fingerprint = try DTLSFingerprint(certificate: x509)
        } catch {
            X509_free(x509)
            EVP_PKEY_free(key)
            throw error
        }
        self.key = key
        self.x509 = x509
    }

    deinit {
        X509_free(x509)
        EVP_PKEY_free(key)
    }

    private static func fill(_ x509: OpaquePointer, key: OpaquePointer, commonName: String,
                             validityDays: Int) throws(DTLSError) {
        var serial: UInt32 = 0
        guard RAND_bytes(&serial, 4) == 1 else { throw OpenSSLError.error("RAND_bytes") }
        guard X509_set_version(x509, 2) == 1,
              ASN1_INTEGER_set(X509_get_serialNumber(x509), Int(serial & 0x7FFF_FFFF)) == 1,
              X509_gmtime_adj(X509_getm_notBefore(x509), -86_400) != nil,
              X509_gmtime_adj(X509_getm_notAfter(x509), validityDays * 86_400) != nil,
              X509_set_pubkey(x509, key) == 1
        else { throw OpenSSLError.error("X509 fields") }
        guard let name = X509_get_subject_name(x509), tk_x509_name_add_cn(name, commonName) == 1,
              X509_set_issuer_name(x509, name) == 1
        else { throw OpenSSLError.error("X509_NAME") }
        guard X509_sign(x509, key, EVP_sha256()) > 0 else { throw OpenSSLError.error("X509_sign") }
    }
}
