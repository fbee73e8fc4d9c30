/// One frame size a camera offers for a pixel format, with the frame intervals it offers at that size.
///
/// A plain value, usable from any thread.
public struct CameraFrameSize: Hashable, Sendable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// The frame intervals at this size, as the driver lists them (usually fastest first).
    public var intervals: [CameraFrameInterval]

    /// A size with the intervals offered at it.
    public init(width: Int, height: Int, intervals: [CameraFrameInterval]) {
        self.width = width
        self.height = height
        self.intervals = intervals
    }

    /// `WxH @ rate, rate, …`, e.g. `640x480 @ 30 fps, 15 fps`.
    public var description: String {
        "\(width)x\(height)" + (intervals.isEmpty ? "" : " @ " + intervals.map(\.description).joined(separator: ", "))
    }
}
