/// A session- or media-level attribute TokKitSDP keeps without interpreting (RFC 8866 §5.13):
/// `a=<name>` (property) or `a=<name>:<value>`.
public struct SDPAttribute: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var value: String?

    public init(_ name: String, _ value: String? = nil) {
        self.name = name
        self.value = value
    }

    /// The line without `a=`.
    public var description: String { value.map { "\(name):\($0)" } ?? name }
}
