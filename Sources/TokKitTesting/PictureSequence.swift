import Foundation

/// The picture sequence call-bench's two jobs send (TokKit's, and aiortc's in Benchmarks/aiortc-call, which reads the
/// same bytes from the file ``write(to:)`` makes), so the two encoders get exactly the same work; network-bench's
/// TokKit peers send it too (``SequenceCapturer``).
///
/// 640x480 I420 frames (tight strides: Y then U then V), a loop of ``count`` frames, in one of two contents:
///
/// - ``Content/textured`` (the default): camera-like content that keeps a 1 Mbps VP8 encoder busy, as the job
///   asks: a textured background (a smooth luma/chroma wave plus fixed fine detail) panning left 4 px per frame over a
///   320 px period, and a 96x96 textured block moving on a circle (radius 120 px) once per loop; the loop is seamless.
/// - ``Content/pattern``: what Chromium's fake camera shows: a dark still background, a grey pie in the middle (radius
///   120 px) whose angle grows by 360° over the loop, and a moving 8-digit frame counter drawn as blocks under it.
///   Cheap to encode: VP8 at cpu-used -6 spends only about 300 kbps on it, well under the 1 Mbps target.
///
/// Both carry the frame's index in the loop in the top row as 16 blocks of 32x32 (bit k at x = 32k: 235 for 1, 16
/// for 0), which the aiortc job reads back from each decoded picture to find its capture time (TokKit maps RTP
/// timestamps instead and needs no stamp, but sends the same picture).
public struct PictureSequence: Sendable {
    public enum Content: String, CaseIterable, Sendable {
        case pattern, textured
    }

    public static let width = 640, height = 480
    /// The background repeats every 320 px and pans 4 px per frame: 80 frames per loop.
    public static let count = 80
    static let pan = 4, period = 320
    static let blockSize = 32, bits = 16
    public static var frameBytes: Int { width * height * 3 / 2 }

    /// `count` frames back to back.
    public private(set) var bytes: [UInt8]

    public let content: Content

    public init(_ content: Content) {
        self.content = content
        switch content {
        case .pattern: bytes = Self.pattern()
        case .textured: bytes = Self.textured()
        }
        // The frame index, in both.
        var out = bytes
        for f in 0..<Self.count {
            let base = f * Self.frameBytes
            for bit in 0..<Self.bits {
                let value: UInt8 = (f >> bit) & 1 == 1 ? 235 : 16
                for y in 0..<Self.blockSize {
                    for x in (bit * Self.blockSize)..<((bit + 1) * Self.blockSize) { out[base + y * Self.width + x] = value }
                }
            }
        }
        bytes = out
    }

    /// Chromium's fake camera: dark background, a growing grey pie, a frame counter.
    private static func pattern() -> [UInt8] {
        let w = width, h = height, n = count, lumaSize = w * h
        var out = [UInt8](repeating: 128, count: frameBytes * n)
        // The digits 0-9 as 3x5 glyphs (bit 14 = top left), drawn with 8x8 blocks.
        let glyphs: [UInt16] = [0x7B6F, 0x2C97, 0x73E7, 0x73CF, 0x5BC9, 0x79CF, 0x79EF, 0x7249, 0x7BEF, 0x7BCF]
        for f in 0..<n {
            let base = f * frameBytes
            for i in 0..<lumaSize { out[base + i] = 16 }
            let end = 2 * Double.pi * Double(f + 1) / Double(n)
            for y in 120..<360 {
                for x in 200..<440 {
                    let dx = Double(x - 320), dy = Double(y - 240)
                    guard dx * dx + dy * dy <= 120 * 120 else { continue }
                    var angle = atan2(dy, dx)
                    if angle < 0 { angle += 2 * Double.pi }
                    if angle <= end { out[base + y * w + x] = 128 }
                }
            }
            // The counter: 8 digits of (f + 1000), moving 2 px right per frame.
            let digits = Array(String(format: "%08d", f + 1000).utf8).map { Int($0) - 48 }
            let left = 160 + 2 * f % 160
            for (k, digit) in digits.enumerated() {
                for row in 0..<5 {
                    for col in 0..<3 where glyphs[digit] >> (14 - (row * 3 + col)) & 1 == 1 {
                        for y in (380 + row * 8)..<(388 + row * 8) {
                            for x in (left + k * 32 + col * 8)..<(left + k * 32 + col * 8 + 8) { out[base + y * w + x] = 235 }
                        }
                    }
                }
            }
        }
        return out
    }

    /// Textured background panning, a textured block on a circle.
    private static func textured() -> [UInt8] {
        let w = width, h = height, n = count
        let lumaSize = w * h, chromaWidth = w / 2, chromaHeight = h / 2
        // Fixed fine detail (a hash of the scene coordinate), ±8 levels, periodic with the pan.
        func detail(_ x: Int, _ y: Int) -> Int {
            var v = UInt32(truncatingIfNeeded: x &* 73_856_093 ^ y &* 19_349_663)
            v ^= v >> 13; v &*= 0x5bd1_e995; v ^= v >> 15
            return Int(v % 17) - 8
        }
        // One 320-px period of background, luma and chroma.
        var tileY = [UInt8](repeating: 0, count: Self.period * h)
        for y in 0..<h {
            for x in 0..<Self.period {
                let wave = 60 * sin(2 * Double.pi * Double(x) / Double(Self.period)) * cos(2 * Double.pi * Double(y) / 480)
                tileY[y * Self.period + x] = UInt8(clamping: 120 + Int(wave) + Int(Double(y) / 8) + detail(x, y))
            }
        }
        let tileChromaWidth = Self.period / 2
        var tileU = [UInt8](repeating: 0, count: tileChromaWidth * chromaHeight)
        var tileV = tileU
        for y in 0..<chromaHeight {
            for x in 0..<tileChromaWidth {
                let phase = 2 * Double.pi * Double(x) / Double(tileChromaWidth)
                tileU[y * tileChromaWidth + x] = UInt8(clamping: 128 + Int(24 * sin(phase) + Double(y - 120) / 6))
                tileV[y * tileChromaWidth + x] = UInt8(clamping: 128 + Int(24 * cos(phase) - Double(y - 120) / 8))
            }
        }
        var out = [UInt8](repeating: 0, count: Self.frameBytes * n)
        for f in 0..<n {
            let base = f * Self.frameBytes
            let shift = (f * Self.pan) % Self.period
            for y in 0..<h {
                for x in 0..<w {
                    out[base + y * w + x] = tileY[y * Self.period + (x + shift) % Self.period]
                }
            }
            for y in 0..<chromaHeight {
                for x in 0..<chromaWidth {
                    let t = y * tileChromaWidth + (x + shift / 2) % tileChromaWidth
                    out[base + lumaSize + y * chromaWidth + x] = tileU[t]
                    out[base + lumaSize + chromaWidth * chromaHeight + y * chromaWidth + x] = tileV[t]
                }
            }
            // The moving block (luma and chroma), textured so it is not a flat square.
            let angle = 2 * Double.pi * Double(f) / Double(n)
            let bx = 272 + Int(120 * cos(angle)), by = 192 + Int(120 * sin(angle))
            for y in by..<(by + 96) {
                for x in bx..<(bx + 96) {
                    out[base + y * w + x] = UInt8(clamping: 200 + detail(x - bx + 1000, y - by))
                }
            }
            for y in (by / 2)..<((by + 96) / 2) {
                for x in (bx / 2)..<((bx + 96) / 2) {
                    out[base + lumaSize + y * chromaWidth + x] = 90
                    out[base + lumaSize + chromaWidth * chromaHeight + y * chromaWidth + x] = 170
                }
            }
        }
        return out
    }

    /// Calls `body` with frame `index % count`'s Y, U and V planes.
    public func withFrame<R>(_ index: Int, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> R) -> R {
        let lumaSize = Self.width * Self.height, chromaSize = lumaSize / 4
        let start = (index % Self.count) * Self.frameBytes
        return bytes.withUnsafeBytes { raw in
            body(UnsafeRawBufferPointer(rebasing: raw[start..<(start + lumaSize)]),
                 UnsafeRawBufferPointer(rebasing: raw[(start + lumaSize)..<(start + lumaSize + chromaSize)]),
                 UnsafeRawBufferPointer(rebasing: raw[(start + lumaSize + chromaSize)..<(start + Self.frameBytes)]))
        }
    }

    /// Writes the frames as raw I420, back to back (what aiortc_call.py's `--frames` reads).
    public func write(to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
