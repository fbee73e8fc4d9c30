import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import TokKitMedia

/// A test ``VideoRender`` that counts frames, remembers the last size, and checks each frame against the
/// ``PatternCapturer`` picture (bright left half, dark right half): by the mean luma of a block in each half, and by
/// the luma PSNR of the whole frame against the picture as it was captured.
///
/// Called on the media thread; the readers may be used from any thread.
public final class CountingRenderer: VideoRender {
    public struct Snapshot: Sendable, Equatable {
        public var frames = 0
        public var width = 0
        public var height = 0
        /// Frames whose two halves looked like the pattern.
        public var patternFrames = 0
        /// Mean luma of the last frame's left and right blocks.
        public var leftLuma = 0
        public var rightLuma = 0
        /// Luma PSNR (dB) of the last frame, and the lowest of all frames, against the captured picture (nil
        /// before a planar frame arrived; infinite for an exact copy).
        public var lastPSNR: Double?
        public var lowestPSNR: Double?
    }

    private let state = Mutex(Snapshot())

    public init() {}

    public var snapshot: Snapshot { state.withLock { $0 } }
    public var frames: Int { snapshot.frames }

    public func renderVideoFrame(_ frame: VideoFrame) {
        let format = frame.format
        var left = 0, right = 0
        let planar = format.pixelFormat == .i420 || format.pixelFormat == .nv12
        if planar {
            // A borrowed frame kept past its call reads as black (it never is here: this renders at once).
            (left, right) = (try? frame.withPlanes { planes in
                (Self.meanLuma(planes[0], stride: format.bytesPerRow[0], width: format.width,
                               height: format.height, leftHalf: true),
                 Self.meanLuma(planes[0], stride: format.bytesPerRow[0], width: format.width,
                               height: format.height, leftHalf: false))
            }) ?? (0, 0)
        }
        let psnr: Double? = planar ? try? frame.withPlanes { planes in
            Self.lumaPSNR(planes[0], stride: format.bytesPerRow[0], width: format.width, height: format.height)
        } : nil
        let looksRight = planar && abs(left - Int(PatternCapturer.brightLuma)) < 25
            && abs(right - Int(PatternCapturer.darkLuma)) < 25
        state.withLock { s in
            s.frames += 1
            s.width = format.width
            s.height = format.height
            s.leftLuma = left
            s.rightLuma = right
            if looksRight { s.patternFrames += 1 }
            if let psnr {
                s.lastPSNR = psnr
                s.lowestPSNR = min(s.lowestPSNR ?? psnr, psnr)
            }
        }
    }

    /// Luma PSNR of a `width`×`height` plane against the ``PatternCapturer`` picture (RFC-free textbook
    /// definition: 10·log10(255² / mean squared error)).
    static func lumaPSNR(_ plane: UnsafeRawBufferPointer, stride: Int, width: Int, height: Int) -> Double {
        var squared = 0, count = 0
        for y in 0..<height {
            let row = y * stride
            guard row + width <= plane.count else { break }
            for x in 0..<width {
                let expected = Int(x < width / 2 ? PatternCapturer.brightLuma : PatternCapturer.darkLuma)
                let d = Int(plane[row + x]) - expected
                squared += d * d
                count += 1
            }
        }
        guard count > 0 else { return 0 }
        guard squared > 0 else { return .infinity }
        return 10 * log10(255.0 * 255.0 / (Double(squared) / Double(count)))
    }

    /// Mean luma of the block in the middle of the left (or right) half, a quarter of the width wide, half the
    /// height tall.
    static func meanLuma(_ plane: UnsafeRawBufferPointer, stride: Int, width: Int, height: Int, leftHalf: Bool)
        -> Int
    {
        let x0 = leftHalf ? width / 8 : width / 2 + width / 8
        let x1 = x0 + max(1, width / 4)
        let y0 = height / 4, y1 = y0 + max(1, height / 2)
        var sum = 0, count = 0
        for y in y0..<min(y1, height) {
            let row = y * stride
            for x in x0..<min(x1, width) where row + x < plane.count {
                sum += Int(plane[row + x])
                count += 1
            }
        }
        return count == 0 ? 0 : sum / count
    }
}
