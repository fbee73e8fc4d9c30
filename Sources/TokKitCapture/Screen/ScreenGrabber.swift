#if canImport(Glibc)
import Glibc
#endif
import CX11
import Synchronization

/// The per-frame work of a ``ScreenCapturer``: find the area to capture now (following a resized window or
/// screen), read it from the X server, wrap it as a borrowed ARGB ``VideoFrame``.
///
/// Owned by one thread at a time: the control thread while the capturer is initialized, the capture thread
/// while it is started (``ScreenCapturer`` hands it over and joins the thread before taking it back), which is
/// what makes the `@unchecked Sendable` sound. Releasing the last reference closes everything: the
/// shared-memory segment is detached and removed, then the display is closed.
final class ScreenGrabber: @unchecked Sendable {
    let source: ScreenCaptureSource
    let framesPerSecond: Double
    let connection: X11Connection
    /// The MIT-SHM image, or `nil` on the `XGetImage` fallback.
    private var shared: X11SharedImage? {
        didSet { segment.store(shared?.segmentID ?? -1, ordering: .releasing) }
    }
    /// `shared`'s segment id (-1: none), readable from any thread.
    private let segment = Atomic<Int32>(-1)
    /// The format of the area as it was at the last look (first one: at init).
    private(set) var format: VideoFormat
    /// Lends the grabbed pixels (shared-memory segment or XImage) for one delivery at a time.
    private let lease = FrameLease()

    /// Opens the display and checks the source: the window exists and has a usable visual, the region lies on
    /// the screen.
    init(source: ScreenCaptureSource, options: ScreenCaptureOptions) throws(VideoCaptureError) {
        self.source = source
        framesPerSecond = options.framesPerSecond
        connection = try X11Connection(name: options.display)
        format = .argb(width: 1, height: 1, fps: options.framesPerSecond)
        let screen: (width: Int, height: Int, depth: Int32)
        do { screen = try connection.geometry(of: connection.root) } catch { throw map(error) }
        try source.validate(screenWidth: screen.width, screenHeight: screen.height)
        if case let .window(id) = source {
            guard id > 0, id <= 0x1FFF_FFFF else { throw .noSuchWindow(id) }  // XIDs have 29 bits
            let attributes: XWindowAttributes
            do { attributes = try connection.attributes(of: Window(id)) } catch { throw map(error) }
            guard attributes.`class` == InputOutput, let visual = attributes.visual,
                  connection.isARGBCompatible(visual: visual, depth: attributes.depth)
            else { throw .noUsableFormat("window 0x\(String(id, radix: 16)) (depth \(attributes.depth))") }
        } else {
            let (visual, depth) = connection.defaultVisual
            guard connection.isARGBCompatible(visual: visual, depth: depth) else {
                throw .noUsableFormat("X display \(connection.name) (depth \(depth))")
            }
        }
        if let area = try area() { format = format(for: area, bytesPerRow: area.width * 4) }
        if options.usesSharedMemory, connection.hasSharedMemory {
            // Falls back to XGetImage when the server cannot attach our segment (e.g. another IPC namespace).
            shared = try? X11SharedImage(connection: connection, capacity: screen.width * screen.height * 4)
            segment.store(shared?.segmentID ?? -1, ordering: .releasing)  // observers do not run in init
        }
    }

    /// Whether frames come from MIT-SHM (zero-copy) rather than the `XGetImage` fallback. Any thread.
    var usesSharedMemory: Bool { sharedMemorySegmentID != nil }
    /// The shared-memory segment's kernel id, for tests. Any thread.
    var sharedMemorySegmentID: Int32? {
        let id = segment.load(ordering: .acquiring)
        return id >= 0 ? id : nil
    }

    /// Captures the current area and calls `deliver` with it as a borrowed frame (valid during the call).
    ///
    /// Returns `false`, without calling `deliver`, when there is nothing to capture right now: the window is
    /// unmapped, entirely off-screen, or changed between the geometry query and the read.
    /// - Throws: ``VideoCaptureError/noSuchWindow(_:)`` once the window is gone,
    ///   ``VideoCaptureError/invalidRegion(x:y:width:height:)`` if the screen shrank below the region,
    ///   ``VideoCaptureError/noDisplay(_:)`` if the server went away. Capture cannot continue after any of them.
    func grab(_ deliver: (VideoFrame) -> Void) throws(VideoCaptureError) -> Bool {
        guard let area = try area() else { return false }
        let timestamp = MonotonicClock.now()
        let needed = area.width * area.height * 4
        if let current = shared, needed > current.capacity {  // the screen grew: a larger segment
            shared = nil  // the old one is detached first
            shared = try? X11SharedImage(connection: connection, capacity: needed)  // nil: XGetImage from now on
        }
        do {
            if let shared {
                let (pixels, stride, bits) = try shared.grab(
                    area.drawable, x: area.x, y: area.y, width: area.width, height: area.height,
                    visual: area.visual, depth: area.depth)
                try deliverPixels(pixels, area: area, bytesPerRow: stride, bitsPerPixel: bits, timestamp, deliver)
            } else {
                let display = connection.display
                let reply = try connection.request("XGetImage", {
                    XGetImage(display, area.drawable, Int32(area.x), Int32(area.y), UInt32(area.width),
                              UInt32(area.height), tk_x11_all_planes(), ZPixmap)
                }, ok: { $0 != nil })
                guard let image = reply else { throw X11Error.requestFailed("XGetImage") }
                defer { _ = tk_x11_destroy_image(image) }
                let stride = Int(image.pointee.bytes_per_line)
                guard image.pointee.byte_order == LSBFirst else {
                    throw VideoCaptureError.noUsableFormat("X display \(connection.name) (MSB-first images)")
                }
                let pixels = UnsafeRawBufferPointer(start: image.pointee.data, count: stride * area.height)
                try deliverPixels(pixels, area: area, bytesPerRow: stride, bitsPerPixel: Int(image.pointee.bits_per_pixel),
                                  timestamp, deliver)
            }
            return true
        } catch let error as X11Error {
            if case .window = source, error == .badMatch { return false }  // unmapped or resized meanwhile
            throw map(error)
        } catch let error as VideoCaptureError {
            throw error
        } catch {
            throw .systemError(operation: "screen capture: \(error)", errno: EIO)
        }
    }

    private func deliverPixels(
        _ pixels: UnsafeRawBufferPointer, area: Area, bytesPerRow: Int, bitsPerPixel: Int, _ timestamp: Duration,
        _ deliver: (VideoFrame) -> Void
    ) throws(VideoCaptureError) {
        guard bitsPerPixel == 32 else {
            throw .noUsableFormat("X display \(connection.name) (\(bitsPerPixel) bits per pixel)")
        }
        let current = format(for: area, bytesPerRow: bytesPerRow)
        if current != format { format = current }
        do {
            try lease.lend(format: current, borrowing: pixels, timestamp: timestamp) { frame in deliver(frame) }
        } catch {
            throw .systemError(operation: "screen frame \(current): \(error)", errno: EIO)
        }
    }

    private func format(for area: Area, bytesPerRow: Int) -> VideoFormat {
        VideoFormat(pixelFormat: .argb, width: area.width, height: area.height,
                    bytesPerRow: PlaneStrides(CollectionOfOne(bytesPerRow)), estimatedFramesPerSecond: framesPerSecond)
    }

    /// A rectangle of a drawable, in that drawable's coordinates, with the drawable's visual.
    struct Area {
        var drawable: Drawable
        var x, y, width, height: Int
        var visual: UnsafeMutablePointer<Visual>
        var depth: Int32
    }

    /// The area to capture now, or `nil` when nothing of the window is visible.
    private func area() throws(VideoCaptureError) -> Area? {
        do throws(X11Error) { return try lookUpArea() } catch { throw map(error) }
    }

    private func lookUpArea() throws(X11Error) -> Area? {
        switch source {
        case .screen:
            let root = try connection.geometry(of: connection.root)
            let (visual, depth) = connection.defaultVisual
            return Area(drawable: connection.root, x: 0, y: 0, width: root.width, height: root.height,
                        visual: visual, depth: depth)
        case let .region(x, y, width, height):
            let root = try connection.geometry(of: connection.root)
            // The screen shrank below the region: what the server would answer to the read.
            do { try source.validate(screenWidth: root.width, screenHeight: root.height) } catch { throw .badMatch }
            let (visual, depth) = connection.defaultVisual
            return Area(drawable: connection.root, x: x, y: y, width: width, height: height,
                        visual: visual, depth: depth)
        case let .window(id):
            let attributes = try connection.attributes(of: Window(id))
            guard attributes.map_state == IsViewable, let visual = attributes.visual else { return nil }
            let origin = try connection.rootPosition(of: Window(id), root: attributes.root)
            let root = try connection.geometry(of: attributes.root)
            // The on-screen part of the window, in window coordinates.
            let left = max(0, -origin.x), top = max(0, -origin.y)
            let right = min(Int(attributes.width), root.width - origin.x)
            let bottom = min(Int(attributes.height), root.height - origin.y)
            guard right > left, bottom > top else { return nil }
            return Area(drawable: Window(id), x: left, y: top, width: right - left, height: bottom - top,
                        visual: visual, depth: attributes.depth)
        }
    }

    /// What an X error means for this source.
    private func map(_ error: X11Error) -> VideoCaptureError {
        switch error {
        case .connectionLost:
            return .noDisplay(connection.name)
        case .badWindow:
            if case let .window(id) = source { return .noSuchWindow(id) }
            return .systemError(operation: "X request on the root window: \(error)", errno: EIO)
        case .badMatch:
            if case let .region(x, y, width, height) = source {
                return .invalidRegion(x: x, y: y, width: width, height: height)
            }
            return .systemError(operation: "X request: \(error)", errno: EIO)
        case .badAccess:
            return .systemError(operation: "X request: \(error)", errno: EACCES)
        case .badAlloc:
            return .systemError(operation: "X request: \(error)", errno: ENOMEM)
        case .requestFailed, .other:
            return .systemError(operation: "X request: \(error)", errno: EIO)
        }
    }
}
