import CYUV
import TokKitMedia

/// Draws decoded pictures onto a composed archive's I420 canvas: black background, each picture scaled by libyuv
/// (box filter) into its rectangle, written straight into the canvas planes (no intermediate frame).
///
/// Stateless: the caller owns the canvas (a pooled ``VideoFrame`` it has not shared yet) and draws in any order;
/// a later picture covers an earlier one where they overlap. Nothing is allocated.
public enum CanvasCompositor {
    /// Black in limited-range BT.601, as VP8 and players read it: Y 16, U and V 128.
    public static let black: (y: UInt8, u: UInt8, v: UInt8) = (16, 128, 128)

    /// Paints the whole canvas black. `canvas` must be an I420 frame fresh from a pool (never a borrowed one).
    ///
    /// - Throws: ``VideoFrameError/unsupportedConversion(from:to:)`` for another pixel format,
    ///   ``VideoFrameError/notWritable`` for a borrowed frame.
    public static func clear(_ canvas: VideoFrame) throws(VideoFrameError) {
        guard canvas.format.pixelFormat == .i420 else {
            throw .unsupportedConversion(from: canvas.format.pixelFormat, to: .i420)
        }
        guard !canvas.isBorrowed else { throw .notWritable }
        canvas.withMutablePlanes { planes in
            for i in 0..<3 {
                let bytes = canvas.format.minimumSize(ofPlane: i)
                let value = i == 0 ? black.y : i == 1 ? black.u : black.v
                planes[i].baseAddress!.initializeMemory(as: UInt8.self, repeating: value, count: bytes)
            }
        }
    }

    /// Scales the I420 `picture` into `rect` of `canvas` (even edges, inside the canvas).
    ///
    /// - Throws: ``VideoFrameError/unsupportedConversion(from:to:)`` unless both are I420,
    ///   ``VideoFrameError/notWritable`` for a borrowed canvas, ``VideoFrameError/invalidDimensions(width:height:)``
    ///   for a rectangle that is odd or leaves the canvas, ``VideoFrameError/expired`` for a borrowed picture whose
    ///   owner took it back (nothing drawn), ``VideoFrameError/conversionFailed(operation:code:)`` if libyuv fails.
    public static func draw(_ picture: VideoFrame, into canvas: VideoFrame, at rect: CanvasRect) throws(VideoFrameError) {
        guard picture.format.pixelFormat == .i420 else {
            throw .unsupportedConversion(from: picture.format.pixelFormat, to: .i420)
        }
        guard canvas.format.pixelFormat == .i420 else {
            throw .unsupportedConversion(from: canvas.format.pixelFormat, to: .i420)
        }
        guard !canvas.isBorrowed else { throw .notWritable }
        let cw = canvas.format.width, ch = canvas.format.height
        guard rect.width >= 2, rect.height >= 2, rect.x >= 0, rect.y >= 0, rect.x + rect.width <= cw,
              rect.y + rect.height <= ch, (rect.x | rect.y | rect.width | rect.height) & 1 == 0
        else { throw .invalidDimensions(width: rect.width, height: rect.height) }
        let ss = picture.format.bytesPerRow, ds = canvas.format.bytesPerRow
        let rc: Int32 = try picture.withPlanes { src in
            canvas.withMutablePlanes { dst in
                func s(_ i: Int) -> UnsafePointer<UInt8> { src[i].baseAddress!.assumingMemoryBound(to: UInt8.self) }
                func d(_ i: Int, _ offset: Int) -> UnsafeMutablePointer<UInt8> {
                    dst[i].baseAddress!.assumingMemoryBound(to: UInt8.self) + offset
                }
                return I420Scale(
                    s(0), Int32(ss[0]), s(1), Int32(ss[1]), s(2), Int32(ss[2]),
                    Int32(picture.format.width), Int32(picture.format.height),
                    d(0, rect.y * ds[0] + rect.x), Int32(ds[0]),
                    d(1, rect.y / 2 * ds[1] + rect.x / 2), Int32(ds[1]),
                    d(2, rect.y / 2 * ds[2] + rect.x / 2), Int32(ds[2]),
                    Int32(rect.width), Int32(rect.height), kFilterBox)
            }
        }
        guard rc == 0 else { throw .conversionFailed(operation: "I420Scale", code: rc) }
    }
}
