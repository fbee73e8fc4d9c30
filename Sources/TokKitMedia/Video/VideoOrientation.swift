/// How a frame must be rotated to be shown upright, as the SDK's `OTVideoOrientation`.
public enum VideoOrientation: Sendable, Hashable, CaseIterable {
    /// Already upright.
    case up
    /// Upside down: rotate 180°.
    case down
    /// Rotate 90° counter-clockwise to show upright.
    case left
    /// Rotate 90° clockwise to show upright.
    case right

    /// The clockwise rotation, in degrees, that shows the frame upright.
    public var clockwiseDegrees: Int {
        switch self {
        case .up: 0
        case .right: 90
        case .down: 180
        case .left: 270
        }
    }

    /// Whether showing the frame upright swaps its width and height.
    public var swapsDimensions: Bool { self == .left || self == .right }
}
