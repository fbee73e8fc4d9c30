import Foundation
import Synchronization
import TokKitMedia

/// Colour bars with the frame number coded as a row of black/white blocks, in I420: regenerable, so a
/// received frame can be identified and compared with its original.
enum TestPattern {
    static let bits = 12
    /// BT.601 limited-range Y, U, V of eight bars (white, yellow, cyan, green, magenta, red, blue, black).
    static let bars: [(UInt8, UInt8, UInt8)] = [
        (235, 128, 128), (210, 16, 146), (170, 166, 16), (145, 54, 34),
        (106, 202, 222), (81, 90, 240), (41, 240, 110), (16, 128, 128),
    ]

    /// Frame `number` at `width` × `height` (multiples of 32 keep every edge on a macroblock-friendly grid).
    static func frame(_ number: Int, width: Int, height: Int, timestamp: Duration) throws -> VideoFrame {
        let pool = VideoFramePool(capacity: 1)
        let frame = try pool.makeFrame(format: .i420(width: width, height: height), timestamp: timestamp)
        let block = width / (bits + 4)
        frame.withMutablePlanes { p in
            let (y, u, v) = (p[0], p[1], p[2])
            let (ys, cs) = (frame.format.bytesPerRow[0], frame.format.bytesPerRow[1])
            for row in 0..<height {
                for col in 0..<width {
                    var value = bars[col * bars.count / width].0
                    if row < block * 2, col >= block * 2, col < block * (bits + 2) {
                        let bit = (col - block * 2) / block
                        value = (number >> (bits - 1 - bit)) & 1 == 1 ? 235 : 16
                    }
                    y.storeBytes(of: value, toByteOffset: row * ys + col, as: UInt8.self)
                }
            }
            for row in 0..<(height / 2) {
                for col in 0..<(width / 2) {
                    let inCode = row * 2 < block * 2 && col * 2 >= block * 2 && col * 2 < block * (bits + 2)
                    let bar = bars[col * 2 * bars.count / width]
                    u.storeBytes(of: inCode ? 128 : bar.1, toByteOffset: row * cs + col, as: UInt8.self)
                    v.storeBytes(of: inCode ? 128 : bar.2, toByteOffset: row * cs + col, as: UInt8.self)
                }
            }
        }
        return frame
    }

    /// The number coded in a decoded frame (the centre of each block, thresholded); -1 for an expired frame.
    static func number(in frame: VideoFrame) -> Int {
        let width = frame.format.width, block = width / (bits + 4), stride = frame.format.bytesPerRow[0]
        return (try? frame.withPlanes { p in
            var n = 0
            for bit in 0..<bits {
                let x = block * (2 + bit) + block / 2, y = block
                let luma = p[0].load(fromByteOffset: y * stride + x, as: UInt8.self)
                n = n << 1 | (luma > 128 ? 1 : 0)
            }
            return n
        }) ?? -1
    }

    /// PSNR of the Y planes of two frames of the same size, in dB (99 when identical).
    static func lumaPSNR(_ a: VideoFrame, _ b: VideoFrame) -> Double {
        let w = a.format.width, h = a.format.height
        let (sa, sb) = (a.format.bytesPerRow[0], b.format.bytesPerRow[0])
        var squared = 0.0
        let read: Void? = try? a.withPlanes { (pa) throws(VideoFrameError) in
            try b.withPlanes { pb in
                for row in 0..<h {
                    for col in 0..<w {
                        let d = Double(pa[0][row * sa + col]) - Double(pb[0][row * sb + col])
                        squared += d * d
                    }
                }
            }
        }
        guard read != nil else { return 0 }  // an expired borrowed frame: as unlike as can be
        let mse = squared / Double(w * h)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }
}

/// A renderer that identifies every frame it gets and measures its quality against the regenerated original.
final class CountingRenderer: VideoRender {
    struct Seen: Sendable {
        var number: Int
        var width: Int
        var height: Int
        var psnr: Double
    }

    let seen = Mutex<[Seen]>([])
    private let expectedSize: (width: Int, height: Int)

    init(width: Int, height: Int) { expectedSize = (width, height) }

    func renderVideoFrame(_ frame: VideoFrame) {
        let number = TestPattern.number(in: frame)
        var psnr = 0.0
        if frame.format.width == expectedSize.width, frame.format.height == expectedSize.height,
           let original = try? TestPattern.frame(number, width: frame.format.width, height: frame.format.height,
                                                 timestamp: .zero) {
            psnr = TestPattern.lumaPSNR(frame, original)
        }
        let entry = Seen(number: number, width: frame.format.width, height: frame.format.height, psnr: psnr)
        seen.withLock { $0.append(entry) }
    }

    var count: Int { seen.withLock { $0.count } }
    var numbers: [Int] { seen.withLock { $0.map(\.number) } }
}
