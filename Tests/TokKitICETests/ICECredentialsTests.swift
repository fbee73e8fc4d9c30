import Testing
import TokKitICE

@Suite struct ICECredentialsTests {
    @Test func lengthsAndAlphabetAreChecked() throws {
        _ = try ICECredentials(ufrag: "a+/9", pwd: String(repeating: "x", count: 22))
        #expect(throws: ICEError.invalidCredentials) { try ICECredentials(ufrag: "abc", pwd: String(repeating: "x", count: 22)) }
        #expect(throws: ICEError.invalidCredentials) { try ICECredentials(ufrag: "abcd", pwd: String(repeating: "x", count: 21)) }
        #expect(throws: ICEError.invalidCredentials) { try ICECredentials(ufrag: "ab d", pwd: String(repeating: "x", count: 22)) }
        #expect(throws: ICEError.invalidCredentials) { try ICECredentials(ufrag: "abcd", pwd: String(repeating: "é", count: 22)) }
    }
}
