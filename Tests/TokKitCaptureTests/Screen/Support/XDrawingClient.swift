import CX11

/// The test's own X connection: paints the root window and creates, moves, resizes and destroys plain windows
/// of one solid colour (24-bit TrueColor: a pixel value is 0xRRGGBB). Every call ends with `XSync`, so the
/// server has drawn it when the call returns. One thread at a time.
final class XDrawingClient: @unchecked Sendable {
    private let display: OpaquePointer
    private let lost: UnsafeMutablePointer<Int32>
    let root: Window

    /// Opens `display` (survives the server dying), or `nil` if it cannot be reached.
    init?(display name: String) {
        lost = .allocate(capacity: 1)
        lost.initialize(to: 0)
        guard let d = tk_x11_open_display(name, lost) else {
            lost.deallocate()
            return nil
        }
        display = d
        root = tk_x11_default_root(d)
    }

    deinit {
        XCloseDisplay(display)
        lost.deallocate()
    }

    func paintRoot(_ rgb: UInt) {
        XSetWindowBackground(display, root, rgb)
        XClearWindow(display, root)
        XSync(display, 0)
    }

    /// A mapped window of colour `rgb` with no border, child of `parent` (default: the root window).
    func createWindow(x: Int, y: Int, width: Int, height: Int, rgb: UInt, parent: Window? = nil) -> Window {
        let w = XCreateSimpleWindow(display, parent ?? root, Int32(x), Int32(y), UInt32(width), UInt32(height), 0, 0, rgb)
        XMapWindow(display, w)
        XSync(display, 0)
        return w
    }

    func resize(_ w: Window, width: Int, height: Int) {
        XResizeWindow(display, w, UInt32(width), UInt32(height))
        XSync(display, 0)
    }

    func move(_ w: Window, x: Int, y: Int) {
        XMoveWindow(display, w, Int32(x), Int32(y))
        XSync(display, 0)
    }

    func map(_ w: Window) {
        XMapWindow(display, w)
        XSync(display, 0)
    }

    func unmap(_ w: Window) {
        XUnmapWindow(display, w)
        XSync(display, 0)
    }

    func destroy(_ w: Window) {
        XDestroyWindow(display, w)
        XSync(display, 0)
    }
}
