import TokKitRTP

/// Why a composed archive refused a stream's video frame before decoding it.
public enum ComposedFrameRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// A key frame declared a picture larger than ``ComposedFrameLimit`` (width and height as declared).
    case frameTooLarge(width: Int, height: Int)

    public var description: String {
        switch self {
        case let .frameTooLarge(width, height):
            "VP8 key frame of \(width)x\(height) refused: composed archives decode at most "
                + "\(ComposedFrameLimit.longSide)x\(ComposedFrameLimit.shortSide) (either orientation)"
        }
    }
}

/// The largest VP8 picture a composed archive decodes: 1920x1088 in either orientation (1088x1920 too).
///
/// Why this bound: a key frame declares its size in 14-bit fields (up to 16383x16383), and libvpx allocates its
/// frame buffers from that declaration alone, before any picture data, about 1.5 bytes a pixel per buffer with
/// several buffers per decoder: a crafted 16383x16383 key frame costs gigabytes. 1920x1080 is the largest
/// resolution OpenTok publishes and the largest archive canvas; 1088 is 1080 rounded up to whole 16-pixel
/// macroblocks, which encoders may declare. A larger stream would only be scaled down into a tile of at most the
/// canvas anyway; 4096x2304 would let one stream cost about 4.5 times more memory for no gain in the archive.
/// The check reads only the 10-byte key frame header; delta frames carry no size and decode at their key frame's.
public enum ComposedFrameLimit {
    /// The longer side's bound, in pixels.
    public static let longSide = 1920
    /// The shorter side's bound, in pixels.
    public static let shortSide = 1088

    /// The refusal for a whole VP8 frame (payload descriptors removed) whose key frame header declares a picture
    /// above the bound; nil for a frame within it, a delta frame, or one too short or damaged to say (the decoder
    /// judges those).
    public static func check(_ frame: UnsafeRawBufferPointer) -> ComposedFrameRefusal? {
        guard let header = try? VP8PayloadHeader(parsing: frame), header.isKeyFrame,
              let width = header.width, let height = header.height
        else { return nil }
        guard max(width, height) <= longSide, min(width, height) <= shortSide else {
            return .frameTooLarge(width: width, height: height)
        }
        return nil
    }
}
