/// The size of a stream's video in pixels, as published (the SDK's `OTStream.videoDimensions`).
/// A plain value, safe on any thread.
public struct VideoDimensions: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)x\(height)" }
}
