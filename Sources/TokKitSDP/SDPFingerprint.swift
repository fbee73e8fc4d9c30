/// A certificate fingerprint, `a=fingerprint:<hash-func> <XX:XX:...>` (RFC 8122 §5).
///
/// Browsers send `sha-256`; the digest is kept as bytes (at most 64, enough for sha-512) and written in upper-case
/// hex pairs separated by colons.
public struct SDPFingerprint: Hashable, Sendable {
    public var algorithm: String
    public var digest: [UInt8]

    public init(algorithm: String = "sha-256", digest: [UInt8]) {
        self.algorithm = algorithm
        self.digest = digest
    }

    /// Parses the attribute value (`sha-256 AB:CD:...`).
    public init(parsing value: String) throws(SDPError) {
        guard let parsed = SDPFingerprint(sdp: Substring(value)) else {
            throw .invalidValue(line: 0, field: "fingerprint")
        }
        self = parsed
    }

    init?(sdp value: Substring) {
        let f = value.fields
        guard f.count == 2, isToken(f[0]) else { return nil }
        let pairs = f[1].split(separator: ":", omittingEmptySubsequences: false)
        guard (1 ... 64).contains(pairs.count) else { return nil }
        var digest: [UInt8] = []
        digest.reserveCapacity(pairs.count)
        for pair in pairs {
            guard pair.utf8.count == 2, let byte = UInt8(pair, radix: 16) else { return nil }
            digest.append(byte)
        }
        self.init(algorithm: f[0].lowercased(), digest: digest)
    }

    /// The attribute value, e.g. `sha-256 54:E4:...`.
    public var sdp: String {
        let hexDigits = Array("0123456789ABCDEF")
        let pairs = digest.map { String([hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 0x0F)]]) }
        return "\(algorithm) \(pairs.joined(separator: ":"))"
    }
}
