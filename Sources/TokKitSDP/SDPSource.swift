/// A source-level attribute, `a=ssrc:<ssrc-id> <attribute>[:<value>]` (RFC 5576 §4.1), e.g. `cname:...`,
/// `msid:<stream> <track>`.
public struct SDPSource: Hashable, Sendable {
    public var ssrc: UInt32
    public var attribute: String
    public var value: String?

    public init(ssrc: UInt32, attribute: String, value: String? = nil) {
        self.ssrc = ssrc
        self.attribute = attribute
        self.value = value
    }

    init?(sdp value: Substring) {
        guard let space = value.firstIndex(of: " "), let ssrc = UInt32(value[..<space]) else { return nil }
        let (name, attributeValue) = value[value.index(after: space)...].drop { $0 == " " }.nameAndValue
        guard isToken(name) else { return nil }
        self.init(ssrc: ssrc, attribute: String(name), value: attributeValue.map(String.init))
    }

    var sdp: String { "\(ssrc) \(attribute)" + (value.map { ":\($0)" } ?? "") }
}

/// Sources grouped by semantics, `a=ssrc-group:<semantics> <ssrc-id> ...` (RFC 5576 §4.2); `FID` pairs a media
/// SSRC with its retransmission (rtx) SSRC (RFC 4588 §8.3).
public struct SDPSourceGroup: Hashable, Sendable {
    public var semantics: String
    public var ssrcs: [UInt32]

    public init(semantics: String, ssrcs: [UInt32]) {
        self.semantics = semantics
        self.ssrcs = ssrcs
    }

    init?(sdp value: Substring) {
        let f = value.fields
        guard let semantics = f.first, isToken(semantics) else { return nil }
        var ssrcs: [UInt32] = []
        for field in f.dropFirst() {
            guard let ssrc = UInt32(field) else { return nil }
            ssrcs.append(ssrc)
        }
        self.init(semantics: String(semantics), ssrcs: ssrcs)
    }

    var sdp: String { ([semantics] + ssrcs.map { String($0) }).joined(separator: " ") }
}
