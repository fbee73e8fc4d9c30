import COpenSSL
import TokKitSRTP

/// The SRTP keys a finished DTLS-SRTP handshake yields (RFC 5764 §4.2), already assigned to directions.
///
/// Value type, usable from any thread. Secret: never log it.
struct DTLSSRTPKeys: Sendable, Equatable {
    /// The negotiated profile.
    let profile: SRTPProfile
    /// Keys for packets this side sends.
    let local: SRTPKeyingMaterial
    /// Keys for packets this side receives.
    let remote: SRTPKeyingMaterial

    /// Exports `2 * (key + salt)` bytes with the label `EXTRACTOR-dtls_srtp` and splits them as
    /// client key | server key | client salt | server salt; the client sends with the client half.
    init(ssl: OpaquePointer, profile: SRTPProfile, role: DTLSRole) throws(DTLSError) {
        let k = profile.keyLength, s = profile.saltLength
        var out = [UInt8](repeating: 0, count: 2 * (k + s))
        let label = "EXTRACTOR-dtls_srtp"
        guard SSL_export_keying_material(ssl, &out, out.count, label, label.utf8.count, nil, 0, 0) == 1 else {
            throw OpenSSLError.error("SSL_export_keying_material")
        }
        defer { for i in out.indices { out[i] = 0 } }
        do throws(SRTPError) {
            let client = try SRTPKeyingMaterial(profile: profile, key: Array(out[0..<k]),
                                                salt: Array(out[(2 * k)..<(2 * k + s)]))
            let server = try SRTPKeyingMaterial(profile: profile, key: Array(out[k..<(2 * k)]),
                                                salt: Array(out[(2 * k + s)..<(2 * k + 2 * s)]))
            self.profile = profile
            (local, remote) = role == .client ? (client, server) : (server, client)
        } catch {
            throw .srtp(error)
        }
    }
}
