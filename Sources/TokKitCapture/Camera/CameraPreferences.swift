/// What a ``CameraCapturer`` asks the camera for, and what it delivers.
///
/// The camera gets as close as it can (see ``CameraNegotiation``); ``CameraCapturer/captureSettings()``
/// tells what was obtained. Any value is accepted: sizes and rates the camera cannot do are approximated.
/// A plain value, usable from any thread.
public struct CameraPreferences: Hashable, Sendable {
    /// The pixel formats a camera delivers frames in.
    public enum OutputFormat: Hashable, Sendable, CaseIterable {
        /// Planar 4:2:0 (what VP8 encodes).
        case i420
        /// Semi-planar 4:2:0.
        case nv12

        /// The ``PixelFormat`` of delivered frames.
        public var pixelFormat: PixelFormat {
            switch self {
            case .i420: .i420
            case .nv12: .nv12
            }
        }
    }

    /// Desired frame width in pixels.
    public var width: Int
    /// Desired frame height in pixels.
    public var height: Int
    /// Desired frame rate: the camera runs at the highest rate it offers that is not above it.
    public var framesPerSecond: Double
    /// The pixel format frames are delivered in.
    public var outputFormat: OutputFormat

    /// Preferences for a camera: 640×480 at 30 fps, I420, unless given.
    public init(width: Int = 640, height: Int = 480, framesPerSecond: Double = 30, outputFormat: OutputFormat = .i420) {
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        self.outputFormat = outputFormat
    }
}
