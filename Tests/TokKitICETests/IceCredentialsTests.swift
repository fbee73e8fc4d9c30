import Testing
import TokKitICE

@Suite struct IceCredentialsTests {
    @Test func lengthsAndAlphabetAreChecked() throws {
        _ = try IceCredentials(ufrag: "a+/9", pwd: String(repeating: "x", count: 22))
        #expect(throws: IceError.invalidCredentials) { try IceCredentials(ufrag: "abc", pwd: String(repeating: "x", count: 22)) }
        #expect(throws: IceError.invalidCredentials) { try IceCredentials(ufrag: "abcd", pwd: String(repeating: "x", count: 21)) }
        #expect(throws: IceError.invalidCredentials) { try IceCredentials(ufrag: "ab d", pwd: String(repeating: "x", count: 22)) }
        #expect(throws: IceError.invalidCredentials) { try IceCredentials(ufrag: "abcd", pwd: String(repeating: "é", count: 22)) }
    }
}
