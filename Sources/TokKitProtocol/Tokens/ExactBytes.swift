/// Byte-exact comparison for keys, ids and other strings that arrive from outside.
///
/// Swift's `String ==` (and so `Dictionary<String, _>` lookup) is canonical equivalence: U+212A KELVIN SIGN equals
/// "K", U+037E GREEK QUESTION MARK equals ";". A client could then spell the API key, a token's `iss` or an id in
/// a way that is equal for Swift but different on the wire; this compares the UTF-8 bytes instead.
/// Pure, safe from any thread.
extension String {
    /// True when both strings have exactly the same UTF-8 bytes.
    package func isSameBytes(as other: String) -> Bool {
        utf8.elementsEqual(other.utf8)
    }
}
