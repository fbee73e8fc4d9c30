/// An ICE username fragment and password (`a=ice-ufrag`, `a=ice-pwd`, RFC 8839 §5.4).
///
/// Value type, usable from any thread.
public struct ICECredentials: Sendable, Hashable {
    /// The username fragment: 4 to 256 ice-chars.
    public let ufrag: String
    /// The password: 22 to 256 ice-chars.
    public let pwd: String

    /// Validates the lengths and the ice-char alphabet (`ALPHA / DIGIT / "+" / "/"`).
    public init(ufrag: String, pwd: String) throws(ICEError) {
        guard Self.isValid(ufrag, 4...256), Self.isValid(pwd, 22...256) else { throw .invalidCredentials }
        self.ufrag = ufrag
        self.pwd = pwd
    }

    /// Wraps values libnice generated (already valid).
    init(trusted ufrag: String, pwd: String) {
        self.ufrag = ufrag
        self.pwd = pwd
    }

    private static func isValid(_ s: String, _ lengths: ClosedRange<Int>) -> Bool {
        lengths.contains(s.utf8.count) && s.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2B || c == 0x2F
        }
    }
}
