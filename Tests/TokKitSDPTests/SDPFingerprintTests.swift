import Testing
import TokKitSDP

@Suite struct SDPFingerprintTests {
    @Test func roundTripsUpperCaseHexPairs() throws {
        let f = try SDPFingerprint(parsing: "SHA-256 0a:Bc:00:ff")
        #expect(f.algorithm == "sha-256" && f.digest == [0x0A, 0xBC, 0x00, 0xFF])
        #expect(f.sdp == "sha-256 0A:BC:00:FF")
    }

    @Test func rejectsMalformedDigests() {
        for text in ["sha-256", "sha-256 0A:", "sha-256 0A:BCD", "sha-256 :0A", "sha-256 0A 0B",
                     "sha-256 " + Array(repeating: "00", count: 65).joined(separator: ":")] {
            #expect(throws: SDPError.invalidValue(line: 0, field: "fingerprint")) { try SDPFingerprint(parsing: text) }
        }
    }
}
