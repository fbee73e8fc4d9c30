/// How a ``ScreenCapturer`` connects and paces itself. Plain data; any thread.
public struct ScreenCaptureOptions: Hashable, Sendable {
    /// The X display to open (`":0"`); `nil` reads `DISPLAY`.
    public var display: String?
    /// Frames per second, clamped to 0.1…60. Screens change little: the default is 5.
    public var framesPerSecond: Double {
        get { fps }
        set { fps = newValue.isFinite ? min(max(newValue, 0.1), 60) : 5 }
    }
    /// Whether to use MIT-SHM (`XShmGetImage`, zero-copy) when the server offers it. `false` forces the
    /// `XGetImage` fallback, which copies every frame through the socket and allocates it inside Xlib.
    public var usesSharedMemory: Bool
    /// The name of the capture thread (Linux keeps 15 bytes), as `top -H` shows it.
    public var threadName: String

    private var fps: Double = 5

    /// Options for a ``ScreenCapturer``; the frame rate is clamped to 0.1…60 (a non-finite one becomes 5).
    public init(display: String? = nil, framesPerSecond: Double = 5, usesSharedMemory: Bool = true,
                threadName: String = "tk-screen") {
        self.display = display
        self.usesSharedMemory = usesSharedMemory
        self.threadName = threadName
        self.framesPerSecond = framesPerSecond
    }
}
