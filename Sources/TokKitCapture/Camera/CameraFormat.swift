/// One pixel format a camera offers (`VIDIOC_ENUM_FMT`), with its frame sizes and intervals.
///
/// A plain value, usable from any thread.
public struct CameraFormat: Hashable, Sendable, CustomStringConvertible {
    /// The V4L2 pixel format code.
    public var fourCC: FourCC
    /// The driver's description, e.g. "YUYV 4:2:2" or "Motion-JPEG".
    public var name: String
    /// Whether frames are compressed (`V4L2_FMT_FLAG_COMPRESSED`).
    public var isCompressed: Bool
    /// Whether libv4l2 converts to it in software (`V4L2_FMT_FLAG_EMULATED`); never chosen by TokKit.
    public var isEmulated: Bool
    /// Sizes as the driver lists them (`VIDIOC_ENUM_FRAMESIZES`). A stepwise range appears as its minimum
    /// and maximum size.
    public var sizes: [CameraFrameSize]

    /// A format as a driver would list it.
    public init(fourCC: FourCC, name: String, isCompressed: Bool = false, isEmulated: Bool = false, sizes: [CameraFrameSize]) {
        self.fourCC = fourCC
        self.name = name
        self.isCompressed = isCompressed
        self.isEmulated = isEmulated
        self.sizes = sizes
    }

    /// The TokKit pixel format it converts from, or nil when TokKit cannot use it.
    public var pixelFormat: PixelFormat? { isEmulated ? nil : fourCC.pixelFormat }

    /// The code and the driver's name, e.g. `YUYV (YUYV 4:2:2)`, marked `[emulated]` when libv4l2 emulates it.
    public var description: String {
        "\(fourCC) (\(name))" + (isEmulated ? " [emulated]" : "")
    }
}
