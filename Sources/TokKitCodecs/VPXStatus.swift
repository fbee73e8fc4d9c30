import CVPX

/// A libvpx return code (`vpx_codec_err_t`), in the style of swift-system's `Errno`: a raw value with a named
/// constant for each code libvpx defines. Plain data, `Sendable`.
public struct VPXStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    init(_ code: vpx_codec_err_t) { rawValue = Int32(bitPattern: code.rawValue) }

    /// `VPX_CODEC_ERROR`: unspecified failure.
    public static let error = Self(VPX_CODEC_ERROR)
    /// `VPX_CODEC_MEM_ERROR`: an allocation failed.
    public static let memoryError = Self(VPX_CODEC_MEM_ERROR)
    /// `VPX_CODEC_ABI_MISMATCH`: headers and library disagree.
    public static let abiMismatch = Self(VPX_CODEC_ABI_MISMATCH)
    /// `VPX_CODEC_INCAPABLE`: the codec cannot do what was asked.
    public static let incapable = Self(VPX_CODEC_INCAPABLE)
    /// `VPX_CODEC_UNSUP_BITSTREAM`: the data is not a VP8 stream this decoder understands.
    public static let unsupportedBitstream = Self(VPX_CODEC_UNSUP_BITSTREAM)
    /// `VPX_CODEC_UNSUP_FEATURE`: the stream uses a feature this build lacks.
    public static let unsupportedFeature = Self(VPX_CODEC_UNSUP_FEATURE)
    /// `VPX_CODEC_CORRUPT_FRAME`: the frame's data is damaged.
    public static let corruptFrame = Self(VPX_CODEC_CORRUPT_FRAME)
    /// `VPX_CODEC_INVALID_PARAM`: an argument or configuration value was rejected.
    public static let invalidParameter = Self(VPX_CODEC_INVALID_PARAM)

    public var description: String { String(cString: vpx_codec_err_to_string(vpx_codec_err_t(UInt32(bitPattern: rawValue)))) }
}
