/// The size of a stream's video in pixels, as published (the SDK's `OTStream.videoDimensions`).
/// A plain value, safe on any thread.
public struct VideoDimensions: Sendable, Hashable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// A size of `width` × `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `WxH`, e.g. `640x480`.
    public var description: String { "\(width)x\(height)" }
}
