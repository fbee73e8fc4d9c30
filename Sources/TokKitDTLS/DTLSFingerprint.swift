import COpenSSL

/// A certificate fingerprint as carried in SDP (`a=fingerprint:sha-256 AB:CD:…`, RFC 8122 §5).
///
/// Value type, usable from any thread.
public struct DTLSFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The hash function name as in SDP, lower case: `sha-1`, `sha-224`, `sha-256`, `sha-384`, `sha-512`.
    public let algorithm: String
    /// The digest bytes.
    public let digest: [UInt8]

    /// Parses the attribute value `<hash> <HEX:HEX:…>` (hex case-insensitive). Throws
    /// ``DTLSError/invalidFingerprint(_:)`` for unknown hashes or malformed or wrong-length digests.
    public init(sdpValue: String) throws(DTLSError) {
        let parts = sdpValue.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2 else { throw .invalidFingerprint(sdpValue) }
        let algorithm = parts[0].lowercased()
        guard let length = Self.digestLength[algorithm] else { throw .invalidFingerprint(sdpValue) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        for pair in parts[1].split(separator: ":", omittingEmptySubsequences: false) {
            guard pair.utf8.count == 2, let b = UInt8(pair, radix: 16) else { throw .invalidFingerprint(sdpValue) }
            bytes.append(b)
        }
        guard bytes.count == length else { throw .invalidFingerprint(sdpValue) }
        self.algorithm = algorithm
        self.digest = bytes
    }

    /// The fingerprint of `certificate` (an `X509 *`) with `algorithm`.
    init(certificate: OpaquePointer, algorithm: String = "sha-256") throws(DTLSError) {
        guard let md = Self.digestFunction(algorithm) else { throw .invalidFingerprint(algorithm) }
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, md, &out, &length) == 1 else { throw OpenSSLError.error("X509_digest") }
        self.algorithm = algorithm
        self.digest = Array(out[0..<Int(length)])
    }

    /// The SDP attribute value: `sha-256 AB:CD:…` (upper-case hex, as browsers write it).
    public var sdpValue: String {
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        var text = Array(algorithm.utf8) + [0x20]
        for (i, b) in digest.enumerated() {
            if i > 0 { text.append(0x3A) }
            text.append(hex[Int(b >> 4)])
            text.append(hex[Int(b & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    public var description: String { sdpValue }

    /// Whether `certificate` (an `X509 *`) has this fingerprint.
    func matches(certificate: OpaquePointer) -> Bool {
        guard let actual = try? DTLSFingerprint(certificate: certificate, algorithm: algorithm) else { return false }
        return actual.digest == digest
    }

    private static let digestLength: [String: Int] = [
        "sha-1": 20, "sha-224": 28, "sha-256": 32, "sha-384": 48, "sha-512": 64,
    ]

    private static func digestFunction(_ algorithm: String) -> OpaquePointer? {
        switch algorithm {
        case "sha-1": EVP_sha1()
        case "sha-224": EVP_sha224()
        case "sha-256": EVP_sha256()
        case "sha-384": EVP_sha384()
        case "sha-512": EVP_sha512()
        default: nil
        }
    }
}
