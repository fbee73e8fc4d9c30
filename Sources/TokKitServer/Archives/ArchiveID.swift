/// Archive ids: lowercase UUIDs (version 4, from the system CSPRNG), as OpenTok's. An id from a request path is
/// used only once ``isValid(_:)`` accepted it, so it can name a directory without ever leaving the archive root.
enum ArchiveID {
    /// A fresh id, e.g. `3f2b8c1e-0d4a-4e6f-9b7a-2c5d8e1f0a3b`.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { out.append(UInt8(ascii: "-")) }
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// True for exactly 36 bytes shaped `8-4-4-4-12` of `0-9 a-f`: nothing else reaches the store or the disk.
    static func isValid(_ candidate: String) -> Bool {
        let bytes = Array(candidate.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                else { return false }
            }
        }
        return true
    }
}
