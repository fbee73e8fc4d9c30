/// The memory layout of a video frame's pixels.
///
/// Packed RGB names follow libyuv, which performs every conversion in TokKit: they name a 32-bit
/// little-endian word, so the bytes in memory are in the reverse order of the name.
public enum PixelFormat: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Packed 32-bit, word 0xAARRGGBB: bytes B, G, R, A in memory (X11 ZPixmap, WebRTC `kARGB`). One plane.
    case argb
    /// Packed 32-bit, word 0xBBGGRRAA: bytes A, R, G, B in memory. One plane.
    case bgra
    /// Planar 4:2:0: Y, U and V planes, chroma subsampled by two in both directions. Three planes.
    case i420
    /// Semi-planar 4:2:0: a Y plane and one interleaved UV plane. Two planes.
    case nv12
    /// Packed 4:2:2, bytes Y0 U Y1 V (V4L2 `YUYV`). One plane.
    case yuy2
    /// Motion JPEG: one compressed JPEG image per frame. One plane of variable length.
    case mjpeg

    /// How many planes a frame in this format carries.
    public var planeCount: Int {
        switch self {
        case .argb, .bgra, .yuy2, .mjpeg: 1
        case .nv12: 2
        case .i420: 3
        }
    }

    /// Whether the format is compressed (no fixed size per row).
    public var isCompressed: Bool { self == .mjpeg }

    /// The format's usual name in capitals: `ARGB`, `I420`, `MJPEG`, ….
    public var description: String {
        switch self {
        case .argb: "ARGB"
        case .bgra: "BGRA"
        case .i420: "I420"
        case .nv12: "NV12"
        case .yuy2: "YUY2"
        case .mjpeg: "MJPEG"
        }
    }
}
