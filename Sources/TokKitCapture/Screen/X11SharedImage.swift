#if canImport(Glibc)
import Glibc
#endif
import CX11

/// A System V shared-memory segment attached to both this process and the X server (MIT-SHM), and the
/// `XImage` header through which `XShmGetImage` writes a screen area straight into it.
///
/// The segment is marked for removal (`IPC_RMID`) as soon as the server has attached it, so it disappears
/// with the last detach even if the process dies. One segment serves every image size up to its capacity: a
/// size change only replaces the small `XImage` header, and a steady size allocates nothing. Owned by one
/// thread at a time, like its ``X11Connection``, which it keeps alive.
final class X11SharedImage {
    private let connection: X11Connection
    private let info: UnsafeMutablePointer<XShmSegmentInfo>
    /// Bytes the segment holds.
    let capacity: Int
    private var image: UnsafeMutablePointer<XImage>?

    /// The kernel id of the segment (for tests: gone once the image is released).
    var segmentID: Int32 { info.pointee.shmid }

    /// Creates a segment of `capacity` bytes and attaches it to the server.
    /// - Throws: ``X11Error/badAccess`` (or another error) when the server cannot attach it, e.g. a client in
    ///   another IPC namespace; ``X11Error/requestFailed(_:)`` when the kernel refuses the segment.
    init(connection: X11Connection, capacity: Int) throws(X11Error) {
        self.connection = connection
        self.capacity = capacity
        info = .allocate(capacity: 1)
        info.initialize(to: XShmSegmentInfo())
        let id = shmget(IPC_PRIVATE, capacity, IPC_CREAT | 0o600)
        guard id >= 0 else {
            info.deallocate()
            throw .requestFailed("shmget(\(capacity) bytes): errno \(errno)")
        }
        let address = shmat(id, nil, 0)
        guard let address, address != UnsafeMutableRawPointer(bitPattern: -1) else {
            shmctl(id, IPC_RMID, nil)
            info.deallocate()
            throw .requestFailed("shmat: errno \(errno)")
        }
        info.pointee.shmid = id
        info.pointee.shmaddr = address.assumingMemoryBound(to: CChar.self)
        info.pointee.readOnly = 0
        do {
            _ = try connection.request("XShmAttach", { XShmAttach(connection.display, info) }, ok: { $0 != 0 })
            try connection.sync()
        } catch {
            shmdt(address)
            shmctl(id, IPC_RMID, nil)
            info.deallocate()
            throw error
        }
        shmctl(id, IPC_RMID, nil)
    }

    deinit {
        dropHeader()
        if connection.isOpen {  // after a lost connection the server has already dropped its side
            XShmDetach(connection.display, info)
            XSync(connection.display, 0)
            _ = X11Error.take(lost: false)
        }
        shmdt(info.pointee.shmaddr)
        info.deallocate()
    }

    /// Copies `width`×`height` pixels at (`x`, `y`) of `drawable` into the segment and returns them:
    /// rows of `bytesPerRow` bytes, valid until the next call.
    ///
    /// `visual` and `depth` must be the drawable's. Nothing is allocated unless the size or depth changed.
    /// - Throws: what the server answered (``X11Error/badMatch`` for an area outside the drawable or an
    ///   unmapped window, ``X11Error/badWindow(resource:)`` for a destroyed one).
    func grab(
        _ drawable: Drawable, x: Int, y: Int, width: Int, height: Int, visual: UnsafeMutablePointer<Visual>, depth: Int32
    ) throws(X11Error) -> (pixels: UnsafeRawBufferPointer, bytesPerRow: Int, bitsPerPixel: Int) {
        guard connection.isOpen else { throw .connectionLost }
        let image = try header(width: width, height: height, visual: visual, depth: depth)
        let display = connection.display
        _ = try connection.request("XShmGetImage", {
            XShmGetImage(display, drawable, image, Int32(x), Int32(y), tk_x11_all_planes())
        }, ok: { $0 != 0 })
        let stride = Int(image.pointee.bytes_per_line)
        return (UnsafeRawBufferPointer(start: info.pointee.shmaddr, count: stride * height), stride,
                Int(image.pointee.bits_per_pixel))
    }

    private func header(
        width: Int, height: Int, visual: UnsafeMutablePointer<Visual>, depth: Int32
    ) throws(X11Error) -> UnsafeMutablePointer<XImage> {
        if let image, Int(image.pointee.width) == width, Int(image.pointee.height) == height,
           image.pointee.depth == depth {
            return image
        }
        dropHeader()
        guard let fresh = XShmCreateImage(
            connection.display, visual, UInt32(depth), ZPixmap, info.pointee.shmaddr, info, UInt32(width), UInt32(height))
        else { throw .requestFailed("XShmCreateImage") }
        guard Int(fresh.pointee.bytes_per_line) * height <= capacity else {
            fresh.pointee.data = nil
            _ = tk_x11_destroy_image(fresh)
            throw .requestFailed("XShmCreateImage: \(width)x\(height) exceeds the \(capacity)-byte segment")
        }
        image = fresh
        return fresh
    }

    private func dropHeader() {
        guard let image else { return }
        image.pointee.data = nil  // the segment is ours, not Xlib's to free
        _ = tk_x11_destroy_image(image)
        self.image = nil
    }
}
