import Foundation
import TokKitMedia

/// Synthetic test material: a colour-bar picture with a moving block, sine tones, and the measures used to judge
/// what came back (PSNR, Goertzel).
enum TestSignals {
    /// 75 % colour bars (white, yellow, cyan, green, magenta, red, blue, black) as BT.601 limited-range Y, U, V.
    static let bars: [(UInt8, UInt8, UInt8)] = [
        (180, 128, 128), (162, 44, 142), (131, 156, 44), (112, 72, 58),
        (84, 184, 198), (65, 100, 212), (35, 212, 114), (16, 128, 128),
    ]

    /// Frame `index` of the pattern: vertical bars plus a 1/6-height white block that moves 8 px per frame, over a
    /// bottom quarter of fine noise texture that scrolls 4 px per frame (so that the encoder has real work and rate
    /// control is busy), with capture timestamps spaced as at `fps`. Filled row by row (fast even in debug builds).
    static func colourBars(width: Int, height: Int, index: Int, fps: Int = 30, pool: VideoFramePool) throws -> VideoFrame {
        let frame = try pool.makeFrame(
            format: .i420(width: width, height: height), timestamp: .milliseconds(1000 * index / fps))
        let block = max(8, height / 6)
        let bx = (index * 8) % max(1, width - block), by = (index * 4) % max(1, height - block)
        frame.withMutablePlanes { p in
            for plane in 0..<3 {
                let shift = plane == 0 ? 0 : 1, stride = frame.format.bytesPerRow[plane]
                let w = plane == 0 ? width : (width + 1) / 2
                let base = p[plane].baseAddress!.assumingMemoryBound(to: UInt8.self)
                for row in 0..<frame.format.rows(inPlane: plane) {
                    let line = base + row * stride, y = row << shift
                    for bar in 0..<8 {
                        let from = (bar * width / 8) >> shift, to = min(w, ((bar + 1) * width / 8 + shift) >> shift)
                        let c = bars[bar]
                        line.advanced(by: from).update(repeating: plane == 0 ? c.0 : plane == 1 ? c.1 : c.2, count: to - from)
                    }
                    if plane == 0, y >= height * 3 / 4 {
                        let noise = textureRow(y, offset: 4 * index)
                        noise.withUnsafeBufferPointer { line.update(from: $0.baseAddress!, count: width) }
                    }
                    if y >= by, y < by + block {
                        line.advanced(by: bx >> shift).update(repeating: plane == 0 ? 235 : 128, count: (block + shift) >> shift)
                    }
                }
            }
        }
        return frame
    }

    /// 256 rows of 2048 deterministic noise samples in 16...235, computed once.
    private static let noise: [[UInt8]] = (0..<256).map { y in
        (0..<2048).map { x in
            var h = UInt32(truncatingIfNeeded: x &* 374_761_393 &+ y &* 668_265_263)
            h = (h ^ (h >> 13)) &* 1_274_126_177
            return UInt8(16 + (h ^ (h >> 16)) % 220)
        }
    }

    /// Row `y` of the noise texture from column `offset` on (wrapping), at least 1280 samples.
    static func textureRow(_ y: Int, offset: Int) -> ArraySlice<UInt8> {
        let start = offset % 768
        return noise[y % 256][start..<(start + 1280)]
    }

    /// Peak signal-to-noise ratio of the Y planes, in dB (100 for identical planes).
    static func psnrY(_ a: VideoFrame, _ b: VideoFrame) -> Double {
        precondition(a.format.width == b.format.width && a.format.height == b.format.height)
        let w = a.format.width, h = a.format.height
        let sa = a.format.bytesPerRow[0], sb = b.format.bytesPerRow[0]
        var sum = 0
        let read: Void? = try? a.withPlanes { (pa) throws(VideoFrameError) in
            try b.withPlanes { pb in
                let ya = pa[0].baseAddress!.assumingMemoryBound(to: UInt8.self)
                let yb = pb[0].baseAddress!.assumingMemoryBound(to: UInt8.self)
                for row in 0..<h {
                    var rowSum = 0
                    let ra = ya + row * sa, rb = yb + row * sb
                    for col in 0..<w {
                        let d = Int(ra[col]) &- Int(rb[col])
                        rowSum &+= d &* d
                    }
                    sum += rowSum
                }
            }
        }
        guard read != nil else { return 0 }  // an expired borrowed frame: as unlike as can be
        let mse = Double(sum) / Double(w * h)
        return mse == 0 ? 100 : 10 * log10(255 * 255 / mse)
    }

    /// `count` interleaved samples of a sine at `frequency` (same on every channel), continuing from `start`.
    static func sine(frequency: Double, sampleRate: Int = 48_000, channels: Int = 1, start: Int, count: Int,
                     amplitude: Double = 10_000) -> [Int16] {
        (0..<count).map { i in
            let t = Double(start + i / channels) / Double(sampleRate)
            return Int16(amplitude * sin(2 * .pi * frequency * t))
        }
    }

    /// Goertzel power of `frequency` in the first channel of `samples`.
    static func power(at frequency: Double, in samples: ArraySlice<Int16>, sampleRate: Int = 48_000, channels: Int = 1) -> Double {
        let k = 2 * cos(2 * .pi * frequency / Double(sampleRate))
        var (s1, s2) = (0.0, 0.0)
        var i = samples.startIndex
        while i < samples.endIndex {
            let s0 = Double(samples[i]) + k * s1 - s2
            (s2, s1) = (s1, s0)
            i += channels
        }
        return s1 * s1 + s2 * s2 - k * s1 * s2
    }

    /// The frequency among `low...high` (1 Hz steps) with the most Goertzel power.
    static func dominantFrequency(in samples: ArraySlice<Int16>, low: Int, high: Int, channels: Int = 1) -> Int {
        (low...high).max { power(at: Double($0), in: samples, channels: channels) < power(at: Double($1), in: samples, channels: channels) }!
    }

    /// Root-mean-square level of `samples`.
    static func rms(_ samples: ArraySlice<Int16>) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }
}
