/// A media grouping, `a=group:<semantics> <mid> ...` (RFC 5888 §5); BUNDLE (RFC 8843 §7.1) is the one JSEP uses.
public struct SDPGroup: Hashable, Sendable {
    public var semantics: String
    public var mids: [String]

    public init(semantics: String, mids: [String]) {
        self.semantics = semantics
        self.mids = mids
    }

    public static func bundle(_ mids: [String]) -> SDPGroup { SDPGroup(semantics: "BUNDLE", mids: mids) }

    init?(sdp value: Substring) {
        let f = value.fields
        guard let semantics = f.first, isToken(semantics), f.dropFirst().allSatisfy({ isVisible($0) }) else {
            return nil
        }
        self.init(semantics: String(semantics), mids: f.dropFirst().map(String.init))
    }

    var sdp: String { ([semantics] + mids).joined(separator: " ") }
}
