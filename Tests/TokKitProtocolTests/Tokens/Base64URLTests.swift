import Testing
import TokKitProtocol

@Suite struct Base64URLTests {
    @Test func roundTripsEveryLengthUpTo40() {
        for length in 0...40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text[...]) == bytes)
        }
    }

    @Test(arguments: ["a", "ab=c", "a+b", "a/bc", "ab c", "abc.", "é", "AB==", "abcde"])
    func refusesNonBase64URL(_ text: String) {
        #expect(Base64URL.decode(text[...]) == nil)
    }

    @Test func refusesNonCanonicalTrailingBits() {
        // "AB" encodes 0x00 with four zero trailing bits; "AC" has a non-zero trailing bit.
        #expect(Base64URL.decode("AA"[...]) == [0])
        #expect(Base64URL.decode("AB"[...]) == nil)
    }
}
