/// The ICE (RFC 8839 §5.4) and DTLS (RFC 8122 §5, RFC 8842 §5) attributes of a description or of one m= section.
/// A section's own values take precedence over the session's (see ``SessionDescription/transport(of:)``).
public struct SDPTransport: Hashable, Sendable {
    public var iceUfrag: String?
    public var icePassword: String?
    /// `ice-options` tokens, e.g. `trickle` (RFC 8840 §4.1.1).
    public var iceOptions: [String]
    public var fingerprints: [SDPFingerprint]
    public var setup: SDPSetupRole?

    public init(iceUfrag: String? = nil, icePassword: String? = nil, iceOptions: [String] = [],
                fingerprints: [SDPFingerprint] = [], setup: SDPSetupRole? = nil) {
        self.iceUfrag = iceUfrag
        self.icePassword = icePassword
        self.iceOptions = iceOptions
        self.fingerprints = fingerprints
        self.setup = setup
    }

    /// These values where set, `fallback`'s elsewhere.
    func overriding(_ fallback: SDPTransport) -> SDPTransport {
        SDPTransport(iceUfrag: iceUfrag ?? fallback.iceUfrag, icePassword: icePassword ?? fallback.icePassword,
                     iceOptions: iceOptions.isEmpty ? fallback.iceOptions : iceOptions,
                     fingerprints: fingerprints.isEmpty ? fallback.fingerprints : fingerprints,
                     setup: setup ?? fallback.setup)
    }

    /// Consumes a transport attribute; returns false if `name` is not one, throws if its value is invalid.
    mutating func parse(name: Substring, value: Substring?, line: Int) throws(SDPError) -> Bool {
        switch name {
        case "ice-ufrag":
            // RFC 8839 §5.4: 4-256 ice-chars.
            guard let value, (4 ... 256).contains(value.utf8.count), isVisible(value) else {
                throw .invalidValue(line: line, field: "ice-ufrag")
            }
            iceUfrag = String(value)
        case "ice-pwd":
            // RFC 8839 §5.4: 22-256 ice-chars.
            guard let value, (22 ... 256).contains(value.utf8.count), isVisible(value) else {
                throw .invalidValue(line: line, field: "ice-pwd")
            }
            icePassword = String(value)
        case "ice-options":
            guard let value, value.fields.allSatisfy({ isToken($0) }) else {
                throw .invalidValue(line: line, field: "ice-options")
            }
            iceOptions = value.fields.map(String.init)
        case "fingerprint":
            guard let value, let fingerprint = SDPFingerprint(sdp: value) else {
                throw .invalidValue(line: line, field: "fingerprint")
            }
            fingerprints.append(fingerprint)
        case "setup":
            guard let value, let role = SDPSetupRole(rawValue: String(value)) else {
                throw .invalidValue(line: line, field: "setup")
            }
            setup = role
        default: return false
        }
        return true
    }

    var lines: [String] {
        var out: [String] = []
        if let iceUfrag { out.append("a=ice-ufrag:\(iceUfrag)") }
        if let icePassword { out.append("a=ice-pwd:\(icePassword)") }
        if !iceOptions.isEmpty { out.append("a=ice-options:\(iceOptions.joined(separator: " "))") }
        for f in fingerprints { out.append("a=fingerprint:\(f.sdp)") }
        if let setup { out.append("a=setup:\(setup.rawValue)") }
        return out
    }
}
