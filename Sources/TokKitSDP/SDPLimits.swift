/// Caps applied before and while parsing a session description, so hostile input cannot make the parser allocate
/// or loop without bound. A browser offer is typically 3-10 KiB, 100-250 lines, with lines under 300 bytes.
public struct SDPLimits: Hashable, Sendable {
    public var maximumSize: Int
    public var maximumLines: Int
    public var maximumLineLength: Int
    public var maximumMediaSections: Int

    public init(maximumSize: Int = 64 * 1024, maximumLines: Int = 2048, maximumLineLength: Int = 4096,
                maximumMediaSections: Int = 64) {
        self.maximumSize = maximumSize
        self.maximumLines = maximumLines
        self.maximumLineLength = maximumLineLength
        self.maximumMediaSections = maximumMediaSections
    }

    /// 64 KiB, 2048 lines, 4 KiB per line, 64 m= sections.
    public static let `default` = SDPLimits()
}
