import CYUV
import Synchronization

/// The SDK sample's black-and-white renderer: shows a frame by its luma alone (R = G = B = Y), and here keeps
/// the last one so it can be inspected or saved.
///
/// Each ``renderVideoFrame(_:)`` copies the frame's Y plane into one buffer the renderer owns and reuses
/// (reallocated only when the size changes), so steady rendering allocates nothing. I420 and NV12 frames are
/// read directly; other pixel formats are converted to I420 first (counted in ``framesDropped`` if that fails).
///
/// Thread-safe: frames arrive on one media thread at a time; ``lastImage()``, ``writeImage(to:format:)`` and
/// the counters may be called from any thread. Saving copies the picture under the lock and encodes outside
/// it, so it never holds up rendering for longer than one copy.
public final class GrayscaleRenderer: VideoRender {
    private struct State {
        var luma: [UInt8] = []
        var width = 0
        var height = 0
        var frames = 0
        var dropped = 0
    }

    private let state = Mutex(State())
    private let converter = Mutex(VideoConverter(pool: VideoFramePool(capacity: 2)))

    /// A renderer with no picture yet: ``lastImage()`` is nil until the first frame.
    public init() {}

    /// Keeps a copy of `frame`'s luma as the last picture and counts it; other pixel formats than I420 and NV12 are
    /// converted first. Called on one media thread at a time; allocates only when the size changes.
    public func renderVideoFrame(_ frame: VideoFrame) {
        switch frame.format.pixelFormat {
        case .i420, .nv12:
            keepLuma(of: frame)
        case .argb, .bgra, .yuy2, .mjpeg:
            let i420: VideoFrame? = converter.withLock { c in try? c.convert(frame, to: .i420) }
            if let i420 { keepLuma(of: i420) } else { state.withLock { $0.dropped += 1 } }
        }
    }

    /// Frames rendered so far.
    public var frameCount: Int { state.withLock { $0.frames } }
    /// Frames that could not be read (unconvertible pixel format or data, or a borrowed frame that had expired).
    public var framesDropped: Int { state.withLock { $0.dropped } }
    /// The size of the last frame rendered, `nil` before the first.
    public var lastSize: (width: Int, height: Int)? {
        state.withLock { s in s.frames == 0 ? nil : (s.width, s.height) }
    }

    /// A copy of the last frame's luma, `nil` before the first frame.
    public func lastImage() -> GrayscaleImage? {
        state.withLock { s -> GrayscaleImage? in
            guard s.frames > 0 else { return nil }
            // An explicit copy: sharing the array would make the next frame pay for copy-on-write.
            let copy = [UInt8](unsafeUninitializedCapacity: s.luma.count) { out, count in
                s.luma.withUnsafeBufferPointer { out.baseAddress!.update(from: $0.baseAddress!, count: $0.count) }
                count = s.luma.count
            }
            return GrayscaleImage(width: s.width, height: s.height, pixels: copy)
        }
    }

    /// Writes the last frame to `path` as PGM or PNG (``ImageFileFormat/pngRGB``: R = G = B = Y).
    ///
    /// - Throws: ``MediaFileError/noImage`` before the first frame; ``MediaFileError/noSuchFile(path:)``,
    ///   ``MediaFileError/permissionDenied(path:)``, ``MediaFileError/isDirectory(path:)`` or another system
    ///   error when the file cannot be written.
    public func writeImage(to path: String, format: ImageFileFormat = .png) throws(MediaFileError) {
        guard let image = lastImage() else { throw .noImage }
        try image.write(to: path, format: format)
    }

    private func keepLuma(of frame: VideoFrame) {
        let f = frame.format
        do {
            try frame.withPlanes { planes in
                state.withLock { s in
                    let size = f.width * f.height
                    if s.luma.count != size { s.luma = [UInt8](repeating: 0, count: size) }
                    s.luma.withUnsafeMutableBufferPointer { dst in
                        CopyPlane(
                            planes[0].baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(f.bytesPerRow[0]),
                            dst.baseAddress!, Int32(f.width), Int32(f.width), Int32(f.height))
                    }
                    s.width = f.width
                    s.height = f.height
                    s.frames += 1
                }
            }
        } catch {
            state.withLock { $0.dropped += 1 }  // a borrowed frame kept past its call: nothing to read
        }
    }
}
