import Testing
import TokKitDTLS

@Suite struct DTLSCertificateTests {
    @Test func eachCertificateHasItsOwnSHA256Fingerprint() throws {
        let a = try DTLSCertificate(), b = try DTLSCertificate()
        #expect(a.fingerprint.algorithm == "sha-256" && a.fingerprint.digest.count == 32)
        #expect(a.fingerprint != b.fingerprint)
        #expect(try DTLSFingerprint(sdpValue: a.fingerprint.sdpValue) == a.fingerprint)
    }
}
