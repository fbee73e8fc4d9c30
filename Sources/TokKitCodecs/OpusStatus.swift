import COpus

/// A negative libopus return code (`OPUS_*` error), in the style of swift-system's `Errno`: a raw value with a
/// named constant for each code libopus defines. Plain data, `Sendable`.
public struct OpusStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// `OPUS_BAD_ARG`: an argument was out of range.
    public static let badArgument = Self(rawValue: OPUS_BAD_ARG)
    /// `OPUS_BUFFER_TOO_SMALL`: the output buffer cannot hold the result.
    public static let bufferTooSmall = Self(rawValue: OPUS_BUFFER_TOO_SMALL)
    /// `OPUS_INTERNAL_ERROR`: libopus failed internally.
    public static let internalError = Self(rawValue: OPUS_INTERNAL_ERROR)
    /// `OPUS_INVALID_PACKET`: the packet is corrupt or not Opus.
    public static let invalidPacket = Self(rawValue: OPUS_INVALID_PACKET)
    /// `OPUS_UNIMPLEMENTED`: the request is not implemented.
    public static let unimplemented = Self(rawValue: OPUS_UNIMPLEMENTED)
    /// `OPUS_INVALID_STATE`: the encoder or decoder state is invalid.
    public static let invalidState = Self(rawValue: OPUS_INVALID_STATE)
    /// `OPUS_ALLOC_FAIL`: an allocation failed.
    public static let allocationFailed = Self(rawValue: OPUS_ALLOC_FAIL)

    public var description: String { String(cString: opus_strerror(rawValue)) }
}
