#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Unpadded base64url (RFC 4648 §5), as JWTs use it. Decoding is strict and canonical: any character outside the
/// alphabet, a length that cannot be base64, or non-zero unused trailing bits is refused, so two different strings
/// never decode to the same bytes. Stateless, thread-safe.
///
/// In TokKitProtocol (package access) so that token parsing has no dependency and can be fuzzed on its own
/// (Docs/Fuzzing.md); the server signs and verifies with it.
package enum Base64URL {
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }

    /// The bytes, or nil when `text` is not canonical unpadded base64url.
    package static func decode(_ text: Substring) -> [UInt8]? {
        guard text.utf8.count % 4 != 1 else { return nil }
        var standard = ""
        standard.reserveCapacity(text.utf8.count + 3)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "A"..."Z", "a"..."z", "0"..."9": standard.unicodeScalars.append(scalar)
            case "-": standard.append("+")
            case "_": standard.append("/")
            default: return nil
            }
        }
        while standard.utf8.count % 4 != 0 { standard.append("=") }
        guard let data = Data(base64Encoded: standard) else { return nil }
        let bytes = [UInt8](data)
        // Canonical form only: re-encoding must give back the input (rejects stray trailing bits).
        guard encode(bytes) == text else { return nil }
        return bytes
    }
}
