/// An RTCP feedback capability, `a=rtcp-fb:<pt> <type> [<parameter>]` (RFC 4585 §4.2), e.g. `nack`, `nack pli`,
/// `ccm fir` (RFC 5104 §7.1), `goog-remb`, `transport-cc`.
public struct SDPFeedback: Hashable, Sendable, CustomStringConvertible {
    public var type: String
    public var parameter: String?

    public init(_ type: String, _ parameter: String? = nil) {
        self.type = type
        self.parameter = parameter
    }

    public static let nack = SDPFeedback("nack")
    public static let pictureLossIndication = SDPFeedback("nack", "pli")
    public static let fullIntraRequest = SDPFeedback("ccm", "fir")
    public static let receiverEstimatedMaximumBitrate = SDPFeedback("goog-remb")
    public static let transportWideCC = SDPFeedback("transport-cc")

    init?(fields: ArraySlice<Substring>) {
        guard let type = fields.first, isVisible(type), fields.count <= 3, fields.allSatisfy({ isVisible($0) })
        else { return nil }
        self.init(String(type), fields.count > 1 ? fields.dropFirst().joined(separator: " ") : nil)
    }

    public var description: String { parameter.map { "\(type) \($0)" } ?? type }
}
