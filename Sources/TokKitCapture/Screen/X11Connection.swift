#if canImport(Glibc)
import Glibc
#endif
import CX11

/// One Xlib connection (`Display *`) wrapped as throwing calls: each request returns its result or the
/// ``X11Error`` the server answered with, never a process exit.
///
/// Not thread-safe: used by one thread at a time (the capturer's control thread, then its capture thread).
/// Xlib itself is initialised for threads (`XInitThreads`) by ``tk_x11_init()``. The connection closes on deinit,
/// or at once, on the thread that notices, when the server goes away: after a connection loss libX11 (1.8)
/// leaves the display locked to that thread, and any Xlib call from another thread, even `XCloseDisplay`,
/// blocks forever.
final class X11Connection {
    /// The display name that was opened (`":1"`), for error messages.
    let name: String
    let display: OpaquePointer
    /// The default screen's root window.
    let root: Window
    /// Set to 1 by Xlib (from any request on this connection) when the server goes away.
    private let lost: UnsafeMutablePointer<Int32>

    /// Opens `name`, or `$DISPLAY` when `nil`.
    /// - Throws: ``VideoCaptureError/noDisplay(_:)`` if no name is given and DISPLAY is unset, or the server
    ///   cannot be reached.
    init(name: String?) throws(VideoCaptureError) {
        let resolved = name ?? getenv("DISPLAY").map { String(cString: $0) } ?? ""
        guard !resolved.isEmpty else { throw .noDisplay("") }
        let lost = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        lost.initialize(to: 0)
        guard let display = tk_x11_open_display(resolved, lost) else {
            lost.deallocate()
            throw .noDisplay(resolved)
        }
        self.name = resolved
        self.display = display
        self.lost = lost
        root = tk_x11_default_root(display)
        _ = X11Error.take(lost: false)  // nothing from before belongs to this connection
    }

    deinit {
        if isOpen { XCloseDisplay(display) }
        lost.deallocate()
    }

    /// Whether the server has gone away (every request now fails).
    var isLost: Bool { lost.pointee != 0 }
    /// Whether `display` may still be used: false once the connection was lost and closed.
    private(set) var isOpen = true

    /// Runs one Xlib call and turns a failure into the error the server sent.
    ///
    /// `ok` tells from the call's own result whether it succeeded; a call that "succeeded" but drew an error
    /// (an asynchronous request followed by `XSync`) fails as well.
    func request<R>(_ what: String, _ call: () -> R, ok: (R) -> Bool) throws(X11Error) -> R {
        guard isOpen else { throw .connectionLost }
        _ = X11Error.take(lost: false)
        let result = call()
        if let error = X11Error.take(lost: isLost) {
            if error == .connectionLost {
                XCloseDisplay(display)  // here, on the thread that saw the loss (see the type's documentation)
                isOpen = false
            }
            throw error
        }
        guard ok(result) else { throw .requestFailed(what) }
        return result
    }

    /// Sends everything buffered and waits until the server has processed it (errors arrive here).
    func sync() throws(X11Error) {
        _ = try request("XSync", { XSync(display, 0) }, ok: { _ in true })
    }

    /// Size and position of `drawable` (for a window: relative to its parent), and its depth.
    func geometry(of drawable: Drawable) throws(X11Error) -> (width: Int, height: Int, depth: Int32) {
        var root: Window = 0
        var x: Int32 = 0, y: Int32 = 0
        var width: UInt32 = 0, height: UInt32 = 0, border: UInt32 = 0, depth: UInt32 = 0
        _ = try request("XGetGeometry", {
            XGetGeometry(display, drawable, &root, &x, &y, &width, &height, &border, &depth)
        }, ok: { $0 != 0 })
        return (Int(width), Int(height), Int32(depth))
    }

    /// Everything about a window the capturer needs: size, depth, visual, map state, root.
    func attributes(of window: Window) throws(X11Error) -> XWindowAttributes {
        var attributes = XWindowAttributes()
        _ = try request("XGetWindowAttributes", { XGetWindowAttributes(display, window, &attributes) }, ok: { $0 != 0 })
        return attributes
    }

    /// Where a window's top-left corner lies in its root window's coordinates.
    func rootPosition(of window: Window, root: Window) throws(X11Error) -> (x: Int, y: Int) {
        var x: Int32 = 0, y: Int32 = 0
        var child: Window = 0
        _ = try request("XTranslateCoordinates", {
            XTranslateCoordinates(display, window, root, 0, 0, &x, &y, &child)
        }, ok: { $0 != 0 })
        return (Int(x), Int(y))
    }

    /// Whether the server offers MIT-SHM to this client.
    var hasSharedMemory: Bool { XShmQueryExtension(display) != 0 }

    /// The default screen's visual and depth.
    var defaultVisual: (visual: UnsafeMutablePointer<Visual>, depth: Int32) {
        let screen = tk_x11_default_screen(display)
        return (XDefaultVisual(display, screen), XDefaultDepth(display, screen))
    }

    /// Whether images of `visual` at `depth` arrive as 32-bit little-endian B,G,R,X pixels (libyuv ARGB).
    func isARGBCompatible(visual: UnsafePointer<Visual>, depth: Int32) -> Bool {
        (depth == 24 || depth == 32) && tk_x11_image_byte_order(display) == LSBFirst
            && visual.pointee.red_mask == 0xFF0000 && visual.pointee.green_mask == 0xFF00
            && visual.pointee.blue_mask == 0xFF
    }
}
