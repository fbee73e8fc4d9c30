/// What a ``ScreenCapturer`` captures. Plain data; any thread.
public enum ScreenCaptureSource: Hashable, Sendable, CustomStringConvertible {
    /// The whole default screen (its root window), following its size if it changes.
    case screen
    /// A rectangle of the root window, in screen pixels; it must lie entirely on the screen.
    case region(x: Int, y: Int, width: Int, height: Int)
    /// One window by its X id (as `xwininfo` prints it), following its size. Only its on-screen part is
    /// captured; while it is unmapped or entirely off-screen no frames are delivered.
    case window(UInt)

    /// `screen`, `region WxH+X+Y` or `window 0x…`, as X11 tools write them.
    public var description: String {
        switch self {
        case .screen: "screen"
        case let .region(x, y, w, h): "region \(w)x\(h)+\(x)+\(y)"
        case let .window(id): "window 0x\(String(id, radix: 16))"
        }
    }

    /// Checks a region against a screen of `width`×`height` without any arithmetic that could overflow.
    /// - Throws: ``VideoCaptureError/invalidRegion(x:y:width:height:)`` if the region is empty or not
    ///   entirely on the screen. Other sources always pass.
    func validate(screenWidth: Int, screenHeight: Int) throws(VideoCaptureError) {
        guard case let .region(x, y, width, height) = self else { return }
        guard width > 0, height > 0, x >= 0, y >= 0, width <= screenWidth, height <= screenHeight,
              x <= screenWidth - width, y <= screenHeight - height
        else { throw .invalidRegion(x: x, y: y, width: width, height: height) }
    }
}
