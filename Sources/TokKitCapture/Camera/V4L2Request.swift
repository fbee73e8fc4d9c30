import CV4L2

/// A V4L2 ioctl request number (`VIDIOC_*`), named, for ``V4L2Driver/ioctl(_:_:_:)``.
///
/// Only the requests TokKit issues are listed; each comes from the CV4L2 shim, which expands the kernel's
/// `_IOR`/`_IOWR` macros Swift cannot see. A plain value, usable from any thread.
public struct V4L2Request: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The request number as the kernel's `_IOR`/`_IOWR` macros compute it.
    public let rawValue: UInt
    /// The request numbered `rawValue`.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// `VIDIOC_QUERYCAP` (`v4l2_capability`): driver, card, bus and capabilities.
    public static let queryCapabilities = V4L2Request(rawValue: TK_VIDIOC_QUERYCAP)
    /// `VIDIOC_ENUM_FMT` (`v4l2_fmtdesc`): the pixel format at an index.
    public static let enumerateFormats = V4L2Request(rawValue: TK_VIDIOC_ENUM_FMT)
    /// `VIDIOC_ENUM_FRAMESIZES` (`v4l2_frmsizeenum`): a frame size of a pixel format.
    public static let enumerateFrameSizes = V4L2Request(rawValue: TK_VIDIOC_ENUM_FRAMESIZES)
    /// `VIDIOC_ENUM_FRAMEINTERVALS` (`v4l2_frmivalenum`): a frame interval of a format and size.
    public static let enumerateFrameIntervals = V4L2Request(rawValue: TK_VIDIOC_ENUM_FRAMEINTERVALS)
    /// `VIDIOC_G_FMT` (`v4l2_format`): the current format.
    public static let getFormat = V4L2Request(rawValue: TK_VIDIOC_G_FMT)
    /// `VIDIOC_S_FMT` (`v4l2_format`): sets a format; the driver adjusts it to what it supports.
    public static let setFormat = V4L2Request(rawValue: TK_VIDIOC_S_FMT)
    /// `VIDIOC_G_PARM` (`v4l2_streamparm`): the current frame interval.
    public static let getParameters = V4L2Request(rawValue: TK_VIDIOC_G_PARM)
    /// `VIDIOC_S_PARM` (`v4l2_streamparm`): sets the frame interval; the driver adjusts it.
    public static let setParameters = V4L2Request(rawValue: TK_VIDIOC_S_PARM)
    /// `VIDIOC_REQBUFS` (`v4l2_requestbuffers`): allocates (or with count 0 frees) streaming buffers.
    public static let requestBuffers = V4L2Request(rawValue: TK_VIDIOC_REQBUFS)
    /// `VIDIOC_QUERYBUF` (`v4l2_buffer`): a buffer's length and mmap offset.
    public static let queryBuffer = V4L2Request(rawValue: TK_VIDIOC_QUERYBUF)
    /// `VIDIOC_QBUF` (`v4l2_buffer`): hands a buffer to the driver to fill.
    public static let queueBuffer = V4L2Request(rawValue: TK_VIDIOC_QBUF)
    /// `VIDIOC_DQBUF` (`v4l2_buffer`): takes a filled buffer back (`EAGAIN` when none is ready).
    public static let dequeueBuffer = V4L2Request(rawValue: TK_VIDIOC_DQBUF)
    /// `VIDIOC_STREAMON` (`Int32` buffer type): starts capturing into queued buffers.
    public static let streamOn = V4L2Request(rawValue: TK_VIDIOC_STREAMON)
    /// `VIDIOC_STREAMOFF` (`Int32` buffer type): stops and returns every buffer to the application.
    public static let streamOff = V4L2Request(rawValue: TK_VIDIOC_STREAMOFF)

    /// The kernel's name, e.g. `VIDIOC_DQBUF`, or the number in hex for a request not listed.
    public var description: String {
        switch self {
        case .queryCapabilities: "VIDIOC_QUERYCAP"
        case .enumerateFormats: "VIDIOC_ENUM_FMT"
        case .enumerateFrameSizes: "VIDIOC_ENUM_FRAMESIZES"
        case .enumerateFrameIntervals: "VIDIOC_ENUM_FRAMEINTERVALS"
        case .getFormat: "VIDIOC_G_FMT"
        case .setFormat: "VIDIOC_S_FMT"
        case .getParameters: "VIDIOC_G_PARM"
        case .setParameters: "VIDIOC_S_PARM"
        case .requestBuffers: "VIDIOC_REQBUFS"
        case .queryBuffer: "VIDIOC_QUERYBUF"
        case .queueBuffer: "VIDIOC_QBUF"
        case .dequeueBuffer: "VIDIOC_DQBUF"
        case .streamOn: "VIDIOC_STREAMON"
        case .streamOff: "VIDIOC_STREAMOFF"
        default: "ioctl 0x\(String(rawValue, radix: 16))"
        }
    }
}
