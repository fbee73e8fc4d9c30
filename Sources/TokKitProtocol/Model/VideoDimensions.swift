/// A stream's video size in pixels. Both sides are in `1...ProtocolLimits.maxVideoDimension`.
public struct VideoDimensions: Codable, Hashable, Sendable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// True when both sides are within the protocol's limits.
    public var isValid: Bool {
        (1...ProtocolLimits.maxVideoDimension).contains(width) && (1...ProtocolLimits.maxVideoDimension).contains(height)
    }
}
