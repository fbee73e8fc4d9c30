/// A V4L2 pixel format code: four ASCII characters packed little-endian into a `UInt32` (`v4l2_fourcc`).
///
/// A plain value, usable from any thread.
public struct FourCC: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code as the kernel stores it: the first character in the low byte.
    public let rawValue: UInt32
    /// The code `rawValue`, as read from a V4L2 structure.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The code of four ASCII characters, e.g. `FourCC("NV12")`. Traps on anything else (a programming error).
    public init(_ code: StaticString) {
        precondition(code.utf8CodeUnitCount == 4 && code.isASCII, "a FourCC is four ASCII characters")
        let p = code.utf8Start
        rawValue = UInt32(p[0]) | UInt32(p[1]) << 8 | UInt32(p[2]) << 16 | UInt32(p[3]) << 24
    }

    /// `V4L2_PIX_FMT_NV12`: semi-planar 4:2:0.
    public static let nv12 = FourCC("NV12")
    /// `V4L2_PIX_FMT_YUV420` (`YU12`): planar 4:2:0, that is I420.
    public static let yu12 = FourCC("YU12")
    /// `V4L2_PIX_FMT_YUYV`: packed 4:2:2, what every UVC webcam offers.
    public static let yuyv = FourCC("YUYV")
    /// `V4L2_PIX_FMT_MJPEG`: one JPEG image per frame.
    public static let mjpeg = FourCC("MJPG")
    /// `V4L2_PIX_FMT_JPEG`: JPEG frames (older drivers); decoded like MJPEG.
    public static let jpeg = FourCC("JPEG")

    /// The TokKit pixel format frames in this code convert from, or nil if TokKit cannot use it.
    public var pixelFormat: PixelFormat? {
        switch self {
        case .nv12: .nv12
        case .yu12: .i420
        case .yuyv: .yuy2
        case .mjpeg, .jpeg: .mjpeg
        default: nil
        }
    }

    /// The four characters (non-printable bytes shown as `?`), e.g. `"YUYV"`.
    public var description: String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (8 * $0)) }
        return String(decoding: bytes.map { (0x20..<0x7F).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }
}
