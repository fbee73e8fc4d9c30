import TokKitCapture

/// What the simulated camera shows, so that tests can check every delivered pixel's origin: eight vertical
/// colour bars (BT.601 limited range: white, yellow, cyan, green, magenta, red, blue, black) under a code band
/// of 24 cells along the top, each black (bit 0, Y 16) or white (bit 1, Y 235) with neutral chroma: 16 bits of
/// frame counter then 8 bits of camera marker, most significant first.
///
/// A renderer is built once per format (a template of the bars); each frame then costs one copy plus the code
/// band (a JPEG encode for MJPEG). Owned by the simulated driver, used under its lock.
struct SimulatedPattern {
    /// Y, Cb, Cr of each bar, left to right.
    static let bars: [(y: UInt8, u: UInt8, v: UInt8)] = [
        (235, 128, 128), (210, 16, 146), (170, 166, 16), (145, 54, 34),
        (106, 202, 222), (81, 90, 240), (41, 240, 110), (16, 128, 128),
    ]
    static let codeCells = 24
    static let one: UInt8 = 235
    static let zero: UInt8 = 16

    /// Rows of the code band (even, at most 16).
    static func bandHeight(_ height: Int) -> Int { max(2, min(16, height / 4) & ~1) }
    /// Width of one code cell.
    static func cellWidth(_ width: Int) -> Int { max(1, width / codeCells) }
    /// The bar under column `x`.
    static func bar(atColumn x: Int, width: Int) -> Int { min(7, x * 8 / width) }
    /// The column at the middle of bar `index`.
    static func center(ofBar index: Int, width: Int) -> Int { (2 * index + 1) * width / 16 }

    /// Reads counter and marker back from a luma plane (threshold at mid-grey, sampled at cell centres).
    static func decode(luma: UnsafeRawBufferPointer, stride: Int, width: Int, height: Int) -> (counter: UInt16, marker: UInt8) {
        let row = bandHeight(height) / 2, cw = cellWidth(width)
        var code: UInt32 = 0
        for cell in 0..<codeCells {
            code = code << 1 | (luma[row * stride + cell * cw + cw / 2] > 128 ? 1 : 0)
        }
        return (UInt16(code >> 8), UInt8(code & 0xFF))
    }

    let fourCC: FourCC
    let width: Int
    let height: Int
    let bytesPerLine: Int
    /// Raw formats: one whole frame. MJPEG: the YCbCr 4:4:4 source image.
    private var template: [UInt8]
    private var scratch: [UInt8]

    init(fourCC: FourCC, width: Int, height: Int, bytesPerLine: Int, sizeImage: Int) {
        self.fourCC = fourCC
        self.width = width
        self.height = height
        self.bytesPerLine = bytesPerLine
        let band = Self.bandHeight(height), codeWidth = Self.codeCells * Self.cellWidth(width)
        func pixel(_ x: Int, _ y: Int) -> (y: UInt8, u: UInt8, v: UInt8) {
            if y < band && x < codeWidth { return (Self.zero, 128, 128) }
            return Self.bars[Self.bar(atColumn: x, width: width)]
        }
        let w = width, h = height, bpl = bytesPerLine
        var t = [UInt8](repeating: 0, count: fourCC == .mjpeg ? w * h * 3 : sizeImage)
        switch fourCC {
        case .nv12:
            for y in 0..<h { for x in 0..<w { t[y * bpl + x] = pixel(x, y).y } }
            for y in stride(from: 0, to: h, by: 2) {
                for x in stride(from: 0, to: w, by: 2) {
                    let p = pixel(x, y), o = bpl * h + (y / 2) * bpl + x
                    t[o] = p.u
                    t[o + 1] = p.v
                }
            }
        case .yu12:
            let cs = bpl / 2, uBase = bpl * h, vBase = uBase + cs * ((h + 1) / 2)
            for y in 0..<h { for x in 0..<w { t[y * bpl + x] = pixel(x, y).y } }
            for y in stride(from: 0, to: h, by: 2) {
                for x in stride(from: 0, to: w, by: 2) {
                    let p = pixel(x, y)
                    t[uBase + (y / 2) * cs + x / 2] = p.u
                    t[vBase + (y / 2) * cs + x / 2] = p.v
                }
            }
        case .yuyv:
            for y in 0..<h {
                for x in stride(from: 0, to: w, by: 2) {
                    let a = pixel(x, y), b = pixel(min(x + 1, w - 1), y), o = y * bpl + x * 2
                    t[o] = a.y; t[o + 1] = a.u; t[o + 2] = b.y; t[o + 3] = a.v
                }
            }
        default:  // MJPEG source image
            for y in 0..<h {
                for x in 0..<w {
                    let p = pixel(x, y), o = (y * w + x) * 3
                    t[o] = p.y; t[o + 1] = p.u; t[o + 2] = p.v
                }
            }
        }
        template = t
        scratch = fourCC == .mjpeg ? t : []
    }

    /// Renders frame `counter` of camera `marker` into `buffer`; returns the bytes used (0 if a JPEG did not
    /// fit, which the driver flags as an error frame).
    mutating func render(into buffer: UnsafeMutableRawBufferPointer, counter: UInt16, marker: UInt8) -> Int {
        let code = UInt32(counter) << 8 | UInt32(marker)
        let band = Self.bandHeight(height), cw = Self.cellWidth(width)
        if fourCC == .mjpeg {
            let (w, h) = (width, height)
            return scratch.withUnsafeMutableBytes { img in
                for y in 0..<band {
                    for cell in 0..<Self.codeCells {
                        let value = code >> (Self.codeCells - 1 - cell) & 1 == 1 ? Self.one : Self.zero
                        for x in cell * cw..<(cell + 1) * cw { img[(y * w + x) * 3] = value }
                    }
                }
                let jpeg = SimulatedJPEG.encode(ycc: UnsafeRawBufferPointer(img), width: w, height: h)
                guard jpeg.count <= buffer.count else { return 0 }
                buffer.copyBytes(from: jpeg)
                return jpeg.count
            }
        }
        let n = min(buffer.count, template.count)
        template.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: n) }
        let step = fourCC == .yuyv ? 2 : 1
        for y in 0..<band {
            for cell in 0..<Self.codeCells {
                let value = code >> (Self.codeCells - 1 - cell) & 1 == 1 ? Self.one : Self.zero
                for x in cell * cw..<(cell + 1) * cw { buffer[y * bytesPerLine + x * step] = value }
            }
        }
        return template.count
    }
}
