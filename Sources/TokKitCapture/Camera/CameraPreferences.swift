/// What a ``CameraCapturer`` asks the camera for, and what it delivers.
///
/// The camera gets as close as it can (see ``CameraNegotiation``); ``CameraCapturer/captureSettings()``
/// tells what was obtained. A plain value, usable from any thread.
public struct CameraPreferences: Hashable, Sendable {
    /// Desired frame width in pixels.
    public var width: Int
    /// Desired frame height in pixels.
    public var height: Int
    /// Desired frame rate: the camera runs at the highest rate it offers that is not above it.
    public var framesPerSecond: Double
    /// The pixel format frames are delivered in: ``PixelFormat/i420`` or ``PixelFormat/nv12``.
    public var outputFormat: PixelFormat

    /// - Precondition: `outputFormat` is `.i420` or `.nv12`.
    public init(width: Int = 640, height: Int = 480, framesPerSecond: Double = 30, outputFormat: PixelFormat = .i420) {
        precondition(outputFormat == .i420 || outputFormat == .nv12, "a camera delivers I420 or NV12")
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        self.outputFormat = outputFormat
    }
}
