import Testing
import TokKitProtocol

/// The key-free half of token verification (Docs/Protocol.md, 4), moved here from the server so it can be fuzzed.
@Suite struct CompactTokenTests {
    let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
    let signature = Base64URL.encode([UInt8](repeating: 7, count: 32))

    @Test func aWellFormedTokenIsTakenApart() throws {
        let payload = Base64URL.encode(Array(#"{"iss":"k"}"#.utf8))
        let token = try CompactToken(parsing: "\(header).\(payload).\(signature)")
        #expect(token.payload == Array(#"{"iss":"k"}"#.utf8))
        #expect(token.signature == [UInt8](repeating: 7, count: 32))
        #expect(token.signingInput == Array("\(header).\(payload)".utf8))
    }

    @Test func everyStructuralFlawIs1004() {
        let payload = Base64URL.encode(Array("{}".utf8))
        let cases = [
            "", "..", "\(header).\(payload)", "\(header)..\(signature)", "\(header).\(payload).\(signature).x",
            "\(header).\(payload)=.\(signature)", "\(header).\(payload).\(Base64URL.encode([1, 2, 3]))",
            "\(Base64URL.encode(Array(#"{"alg":"none"}"#.utf8))).\(payload).\(signature)",
            "\(Base64URL.encode(Array(#"{"alg":"HS256","alg":"HS256"}"#.utf8))).\(payload).\(signature)",
            "\(Base64URL.encode(Array(#"{"alg":"HS\u{0032}56x"}"#.utf8))).\(payload).\(signature)",
            "\(header).\(String(repeating: "A", count: ProtocolLimits.maxTokenBytes))).\(signature)",
        ]
        for text in cases {
            #expect(throws: ProtocolError.self, "\(text.prefix(40))") { _ = try CompactToken(parsing: text) }
            do {
                _ = try CompactToken(parsing: text)
            } catch {
                #expect(error.code == .authorizationFailure)
            }
        }
    }
}
