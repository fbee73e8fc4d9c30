import TokKitProtocol

/// Random identifiers and secrets: `bytes` bytes from the system CSPRNG (`getrandom`), base64url-encoded.
enum RandomID {
    static func make(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: count)
        for index in bytes.indices { bytes[index] = generator.next() }
        return Base64URL.encode(bytes)
    }

    /// A session id: `2_` + 24 random bytes.
    static func session() -> String { "2_" + make(bytes: 24) }
    /// A connection, stream or subscriber id: 16 random bytes.
    static func object() -> String { make(bytes: 16) }
}
