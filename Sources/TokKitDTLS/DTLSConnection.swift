import COpenSSL
import Synchronization
import TokKitSRTP

/// One OpenSSL DTLS 1.2 connection (`SSL_CTX` + `SSL` + custom BIO) and its handshake phase: the
/// mutable heart of a ``DTLSTransport``.
///
/// Threading: not thread-safe; ``DTLSTransport`` keeps it inside a `Mutex` and makes every call under it.
final class DTLSConnection {
    enum Phase {
        case new, connecting, connected, closed, failed
    }

    let role: DTLSRole
    private let ctx: OpaquePointer
    private let ssl: OpaquePointer
    private let io: DatagramIO
    private let verifier: FingerprintVerifier
    private(set) var phase = Phase.new
    private(set) var failure: DTLSError?
    private(set) var keys: DTLSSRTPKeys?
    private(set) var startedAt: ContinuousClock.Instant?
    private(set) var connectedAt: ContinuousClock.Instant?
    /// Whether a retransmission timer is scheduled on the network thread.
    var timerArmed = false

    init(role: DTLSRole, certificate: DTLSCertificate, remoteFingerprint: DTLSFingerprint,
         profiles: [SRTPProfile], mtu: Int, send: @escaping (UnsafeRawBufferPointer) -> Void) throws(DTLSError) {
        guard !profiles.isEmpty else { throw .noSRTPProfile }
        guard let ctx = SSL_CTX_new(DTLS_method()) else { throw OpenSSLError.error("SSL_CTX_new") }
        let verifier = FingerprintVerifier(expected: remoteFingerprint)
        let io = DatagramIO(send: send)
        do {
            try Self.configure(ctx, certificate: certificate, profiles: profiles)
        } catch {
            SSL_CTX_free(ctx)
            throw error
        }
        verifier.install(on: ctx)
        guard let ssl = SSL_new(ctx) else {
            SSL_CTX_free(ctx)
            throw OpenSSLError.error("SSL_new")
        }
        let bio: OpaquePointer
        do {
            bio = try DatagramBIO.make(io)
        } catch {
            SSL_free(ssl)
            SSL_CTX_free(ctx)
            throw error
        }
        SSL_set_bio(ssl, bio, bio)
        if role == .client { SSL_set_connect_state(ssl) } else { SSL_set_accept_state(ssl) }
        _ = tk_dtls_set_link_mtu(ssl, mtu)
        self.role = role
        self.ctx = ctx
        self.ssl = ssl
        self.io = io
        self.verifier = verifier
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(ctx)
    }

    /// DTLS 1.2 only, our certificate, `use_srtp` with `profiles` in preference order, ECDHE AEAD suites,
    /// no MTU probing (the BIO is not a socket).
    private static func configure(_ ctx: OpaquePointer, certificate: DTLSCertificate,
                                  profiles: [SRTPProfile]) throws(DTLSError) {
        guard tk_ssl_ctx_pin_dtls12(ctx) != 0 else { throw OpenSSLError.error("SSL_CTX_set_min/max_proto_version") }
        guard SSL_CTX_use_certificate(ctx, certificate.x509) == 1 else {
            throw OpenSSLError.error("SSL_CTX_use_certificate")
        }
        guard SSL_CTX_use_PrivateKey(ctx, certificate.key) == 1, SSL_CTX_check_private_key(ctx) == 1 else {
            throw OpenSSLError.error("SSL_CTX_use_PrivateKey")
        }
        let suites = "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
            + "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"
        guard SSL_CTX_set_cipher_list(ctx, suites) == 1 else { throw OpenSSLError.error("SSL_CTX_set_cipher_list") }
        // Returns 0 on success (unlike most of OpenSSL).
        let srtp = profiles.map(\.openSSLName).joined(separator: ":")
        guard SSL_CTX_set_tlsext_use_srtp(ctx, srtp) == 0 else { throw OpenSSLError.error("SSL_CTX_set_tlsext_use_srtp") }
        _ = SSL_CTX_set_options(ctx, tk_ssl_op_no_query_mtu())
    }

    /// Starts the handshake: the client sends its ClientHello; the server waits for one.
    func start() -> [DTLSTransportState] {
        guard phase == .new else { return [] }
        phase = .connecting
        startedAt = .now
        return [.connecting] + (role == .client ? handshake() : [])
    }

    /// Feeds one DTLS datagram; returns the state changes it caused.
    func receive(_ datagram: UnsafeRawBufferPointer) -> [DTLSTransportState] {
        io.incoming = datagram
        defer { io.incoming = nil }
        switch phase {
        case .new:
            // A ClientHello can arrive before our own start(): a server answers it at once.
            guard role == .server else { return [] }
            return start() + handshake()
        case .connecting:
            return handshake()
        case .connected:
            return readAfterHandshake()
        case .closed, .failed:
            return []
        }
    }

    /// The retransmission timer fired: retransmit the last flight if its timeout expired.
    func timerFired() -> [DTLSTransportState] {
        timerArmed = false
        guard phase == .connecting else { return [] }
        var usec: Int64 = 0
        guard tk_dtls_get_timeout(ssl, &usec) == 1, usec == 0 else { return [] }
        if tk_dtls_handle_timeout(ssl) < 0 {
            return fail(.handshakeFailed(reason: "no answer after the last retransmission: \(OpenSSLError.drain())"))
        }
        return []
    }

    /// The delay until the next retransmission when a timer should be scheduled now, else `nil`.
    func timerToArm() -> Duration? {
        guard phase == .connecting, !timerArmed else { return nil }
        var usec: Int64 = 0
        guard tk_dtls_get_timeout(ssl, &usec) == 1 else { return nil }
        timerArmed = true
        return .microseconds(usec)
    }

    /// Sends close_notify (when connected) and ends the connection.
    func close() -> [DTLSTransportState] {
        switch phase {
        case .closed: return []
        case .connected:
            _ = SSL_shutdown(ssl)
            ERR_clear_error()
        default: break
        }
        phase = .closed
        keys = nil
        return [.closed]
    }

    /// How long the handshake took, once connected.
    var handshakeDuration: Duration? {
        guard let startedAt, let connectedAt else { return nil }
        return connectedAt - startedAt
    }

    // MARK: - Private

    private func handshake() -> [DTLSTransportState] {
        let r = SSL_do_handshake(ssl)
        guard r == 1 else {
            let code = SSL_get_error(ssl, r)
            if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE { return [] }
            if verifier.mismatch.load(ordering: .acquiring) { return fail(.fingerprintMismatch) }
            return fail(.handshakeFailed(reason: OpenSSLError.drain()))
        }
        // Belt and braces: the verify callback ran, but check the certificate we ended up with too.
        guard let peer = SSL_get1_peer_certificate(ssl) else { return fail(.fingerprintMismatch) }
        let matches = verifier.expected.matches(certificate: peer)
        X509_free(peer)
        guard matches else { return fail(.fingerprintMismatch) }
        guard let selected = SSL_get_selected_srtp_profile(ssl),
              let profile = SRTPProfile(protectionProfileID: UInt16(truncatingIfNeeded: selected.pointee.id))
        else { return fail(.noSRTPProfile) }
        do {
            keys = try DTLSSRTPKeys(ssl: ssl, profile: profile, role: role)
        } catch {
            return fail(error)
        }
        phase = .connected
        connectedAt = .now
        return [.connected]
    }

    private func readAfterHandshake() -> [DTLSTransportState] {
        // No application data is expected (no data channels); this consumes alerts, close_notify and
        // retransmitted handshake flights (which OpenSSL answers by retransmitting its own).
        var sink = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        let n = withUnsafeMutableBytes(of: &sink) { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
        guard n <= 0 else { return [] }
        switch SSL_get_error(ssl, n) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return []
        case SSL_ERROR_ZERO_RETURN:
            phase = .closed
            keys = nil
            return [.closed]
        default:
            return fail(.handshakeFailed(reason: "after handshake: \(OpenSSLError.drain())"))
        }
    }

    /// Ends the connection as failed with `error` (no keys).
    func fail(_ error: DTLSError) -> [DTLSTransportState] {
        ERR_clear_error()
        phase = .failed
        failure = error
        keys = nil
        return [.failed]
    }
}
