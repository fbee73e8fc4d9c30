import COpenSSL
import Synchronization

/// Checks the peer's certificate against the fingerprint from its SDP during the handshake, in place of
/// chain verification (WebRTC certificates are self-signed). A mismatch aborts the handshake with an alert.
///
/// Threading: called by OpenSSL inside the handshake; the result is an atomic readable from any thread.
final class FingerprintVerifier: Sendable {
    let expected: DTLSFingerprint
    let mismatch = Atomic<Bool>(false)

    init(expected: DTLSFingerprint) { self.expected = expected }

    /// Installs the check on `ctx` (an `SSL_CTX *`); `self` must outlive it.
    func install(on ctx: OpaquePointer) {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
        SSL_CTX_set_cert_verify_callback(ctx, verifyPeerCertificate, Unmanaged.passUnretained(self).toOpaque())
    }
}

private let verifyPeerCertificate: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { store, arg in
    let verifier = Unmanaged<FingerprintVerifier>.fromOpaque(arg!).takeUnretainedValue()
    guard let store, let leaf = X509_STORE_CTX_get0_cert(store), verifier.expected.matches(certificate: leaf) else {
        verifier.mismatch.store(true, ordering: .releasing)
        if let store { X509_STORE_CTX_set_error(store, X509_V_ERR_CERT_REJECTED) }
        return 0
    }
    return 1
}
