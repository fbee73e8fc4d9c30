/// Byte-exact comparison for keys, ids and other strings that arrive from outside.
///
/// Swift's `String ==` (and so `Dictionary<String, _>` lookup) is canonical equivalence: U+212A KELVIN SIGN equals
/// "K", U+037E GREEK QUESTION MARK equals ";". A client could then spell the API key, a token's `iss` or an id in
/// a way that is equal for Swift but different on the wire; these helpers compare the UTF-8 bytes instead.
/// Pure functions, safe from any thread.
extension String {
    /// True when both strings have exactly the same UTF-8 bytes.
    func isSameBytes(as other: String) -> Bool {
        utf8.elementsEqual(other.utf8)
    }
}

extension Dictionary where Key == String {
    /// The value stored under a key with exactly these UTF-8 bytes (not merely canonically equivalent ones).
    subscript(exactly key: String) -> Value? {
        guard let index = index(forKey: key), self[index].key.isSameBytes(as: key) else { return nil }
        return self[index].value
    }
}
