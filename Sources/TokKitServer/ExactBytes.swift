import TokKitProtocol

/// Byte-exact lookup for keys and ids that arrive from outside: `Dictionary<String, _>` lookup is canonical
/// equivalence (U+212A KELVIN SIGN finds "K"); `String.isSameBytes(as:)` (TokKitProtocol) compares UTF-8 bytes.
/// Pure, safe from any thread.
extension Dictionary where Key == String {
    /// The value stored under a key with exactly these UTF-8 bytes (not merely canonically equivalent ones).
    subscript(exactly key: String) -> Value? {
        guard let index = index(forKey: key), self[index].key.isSameBytes(as: key) else { return nil }
        return self[index].value
    }
}
