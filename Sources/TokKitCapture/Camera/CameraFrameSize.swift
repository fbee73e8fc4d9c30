/// One frame size a camera offers for a pixel format, with the frame intervals it offers at that size.
///
/// A plain value, usable from any thread.
public struct CameraFrameSize: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    /// The frame intervals at this size, as the driver lists them (usually fastest first).
    public var intervals: [CameraFrameInterval]

    public init(width: Int, height: Int, intervals: [CameraFrameInterval]) {
        self.width = width
        self.height = height
        self.intervals = intervals
    }

    public var description: String {
        "\(width)x\(height)" + (intervals.isEmpty ? "" : " @ " + intervals.map(\.description).joined(separator: ", "))
    }
}
