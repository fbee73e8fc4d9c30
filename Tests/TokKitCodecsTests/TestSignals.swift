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

    /// Frame `index` of the pattern: vertical bars plus a 1/6-height white block that moves 8 px per frame, with
    /// capture timestamps spaced as at `fps`.
    static func colourBars(width: Int, height: Int, index: Int, fps: Int = 30, pool: VideoFramePool) throws -> VideoFrame {
        let frame = try pool.makeFrame(
            format: .i420(width: width, height: height), timestamp: .milliseconds(1000 * index / fps))
        let block = max(8, height / 6)
        let bx = (index * 8) % max(1, width - block), by = (index * 4) % max(1, height - block)
        frame.withMutablePlanes { p in
            let s = frame.format.bytesPerRow
            for plane in 0..<3 {
                let w = plane == 0 ? width : (width + 1) / 2, h = frame.format.rows(inPlane: plane)
                let shift = plane == 0 ? 0 : 1
                for row in 0..<h {
                    for col in 0..<w {
                        let (x, y) = (col << shift, row << shift)
                        var (yv, u, v) = bars[min(7, x * 8 / width)]
                        if x >= bx, x < bx + block, y >= by, y < by + block { (yv, u, v) = (235, 128, 128) }
                        p[plane][row * s[plane] + col] = plane == 0 ? yv : plane == 1 ? u : v
                    }
                }
            }
        }
        return frame
    }

    /// Peak signal-to-noise ratio of the Y planes, in dB (100 for identical planes).
    static func psnrY(_ a: VideoFrame, _ b: VideoFrame) -> Double {
        precondition(a.format.width == b.format.width && a.format.height == b.format.height)
        let w = a.format.width, h = a.format.height
        let sa = a.format.bytesPerRow[0], sb = b.format.bytesPerRow[0]
        var sum = 0.0
        a.withPlanes { pa in
            b.withPlanes { pb in
                for row in 0..<h {
                    for col in 0..<w {
                        let d = Double(pa[0][row * sa + col]) - Double(pb[0][row * sb + col])
                        sum += d * d
                    }
                }
            }
        }
        let mse = sum / Double(w * h)
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
