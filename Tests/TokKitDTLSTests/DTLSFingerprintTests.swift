import Testing
import TokKitDTLS

@Suite struct DTLSFingerprintTests {
    static let chrome = "sha-256 9C:E1:33:29:8C:4B:2D:76:6E:B1:5D:C2:5A:8F:53:1A:74:47:D8:0E:96:CB:2A:0F:5E:64:FD:13:8D:44:F3:56"

    @Test func parsesAndFormatsSDPValues() throws {
        let f = try DTLSFingerprint(sdpValue: Self.chrome)
        #expect(f.algorithm == "sha-256" && f.digest.count == 32 && f.digest.first == 0x9C)
        #expect(f.sdpValue == Self.chrome)
        #expect(try DTLSFingerprint(sdpValue: "SHA-256 " + Self.chrome.dropFirst(8).lowercased()) == f)
    }

    @Test(arguments: ["", "sha-256", "md5 AA:BB", "sha-256 9C:E1", "sha-256 9C:E1:33:29:8C:4B:2D:76:6E:B1:5D:C2:5A:8F:53:1A:74:47:D8:0E:96:CB:2A:0F:5E:64:FD:13:8D:44:F3:5G",
                      "sha-1 9C:E1:33:29:8C:4B:2D:76:6E:B1:5D:C2:5A:8F:53:1A:74:47:D8:0E:96", "sha-256 9CE1"])
    func malformedValuesAreRejected(value: String) {
        #expect(throws: DTLSError.invalidFingerprint(value)) { try DTLSFingerprint(sdpValue: value) }
    }
}
