import Testing
@testable import TokKitMedia

/// A solid-colour ARGB frame (libyuv ARGB: bytes B, G, R, A in memory).
func solidARGB(width: Int, height: Int, r: UInt8, g: UInt8, b: UInt8) throws -> VideoFrame {
    var px = [UInt8]()
    for _ in 0..<(width * height) { px += [b, g, r, 255] }
    return try VideoFrame(format: .argb(width: width, height: height), copying: [px])
}

/// Plane `i` of `frame`; no bytes for an expired frame.
func planeBytes(_ frame: VideoFrame, _ i: Int) -> [UInt8] { (try? frame.withPlanes { Array($0[i]) }) ?? [] }

@Suite struct VideoConverterTests {
    let converter = VideoConverter(pool: VideoFramePool(capacity: 8))

    // BT.601 limited range, as libyuv computes it: Y = ((66R + 129G + 25B + 128) >> 8) + 16.
    @Test(arguments: [
        (UInt8(255), UInt8(255), UInt8(255), 235, 128, 128),
        (0, 0, 0, 16, 128, 128),
        (255, 0, 0, 82, 90, 240),
        (0, 255, 0, 144, 54, 34),
        (0, 0, 255, 41, 240, 110),
    ])
    func argbToI420UsesBT601(r: UInt8, g: UInt8, b: UInt8, y: Int, u: Int, v: Int) throws {
        let i420 = try converter.convert(try solidARGB(width: 4, height: 4, r: r, g: g, b: b), to: .i420)
        #expect(i420.format.pixelFormat == .i420)
        for (plane, want) in [(0, y), (1, u), (2, v)] {
            for got in planeBytes(i420, plane) { #expect(abs(Int(got) - want) <= 1, "plane \(plane)") }
        }
    }

    @Test func argbNV12AndI420AgreeAndRoundTrip() throws {
        let argb = try solidARGB(width: 6, height: 4, r: 200, g: 100, b: 50)
        let nv12 = try converter.convert(argb, to: .nv12)
        let i420 = try converter.convert(argb, to: .i420)
        let viaNV12 = try converter.convert(nv12, to: .i420)
        #expect(planeBytes(viaNV12, 0) == planeBytes(i420, 0))
        #expect(planeBytes(viaNV12, 1) == planeBytes(i420, 1))
        #expect(planeBytes(viaNV12, 2) == planeBytes(i420, 2))
        let back = try converter.convert(try converter.convert(i420, to: .nv12), to: .i420)
        #expect(planeBytes(back, 0) == planeBytes(i420, 0))
        let rgb = planeBytes(try converter.convert(nv12, to: .argb), 0)
        #expect(abs(Int(rgb[2]) - 200) <= 3 && abs(Int(rgb[1]) - 100) <= 3 && abs(Int(rgb[0]) - 50) <= 3)
    }

    @Test func bgraPathsGoThroughLibyuv() throws {
        // BGRA bytes in memory: A, R, G, B.
        var px = [UInt8]()
        for _ in 0..<16 { px += [255, 255, 0, 0] }
        let bgra = try VideoFrame(format: VideoFormat(pixelFormat: .bgra, width: 4, height: 4), copying: [px])
        let y = planeBytes(try converter.convert(bgra, to: .i420), 0)
        #expect(y.allSatisfy { abs(Int($0) - 82) <= 1 }, "pure red")
        let nv12 = try converter.convert(bgra, to: .nv12)
        #expect(planeBytes(nv12, 0).allSatisfy { abs(Int($0) - 82) <= 1 })
        let back = planeBytes(try converter.convert(nv12, to: .bgra), 0)
        #expect(back[0] == 255 && back[1] > 240 && back[2] < 15 && back[3] < 15)
        #expect(planeBytes(try converter.convert(bgra, to: .argb), 0).prefix(4) == [0, 0, 255, 255])
    }

    @Test func yuy2ToI420() throws {
        // Two pixels per 4 bytes: Y0 U Y1 V.
        let row: [UInt8] = [10, 100, 20, 200, 30, 100, 40, 200]
        let yuy2 = try VideoFrame(format: VideoFormat(pixelFormat: .yuy2, width: 4, height: 2), copying: [row + row])
        let i420 = try converter.convert(yuy2, to: .i420)
        #expect(planeBytes(i420, 0) == [10, 20, 30, 40, 10, 20, 30, 40])
        #expect(planeBytes(i420, 1) == [100, 100])
        #expect(planeBytes(i420, 2) == [200, 200])
    }

    @Test func mjpegDecodesToI420() throws {
        let jpeg = Self.gray16JPEG
        let mjpeg = try VideoFrame(format: VideoFormat(pixelFormat: .mjpeg, width: 16, height: 16), copying: [jpeg])
        let i420 = try converter.convert(mjpeg, to: .i420)
        #expect(i420.format == .i420(width: 16, height: 16).with(pixelFormat: .i420))
        #expect(planeBytes(i420, 0).allSatisfy { abs(Int($0) - 128) <= 2 })
    }

    @Test func corruptMJPEGIsATypedError() throws {
        let junk = try VideoFrame(format: VideoFormat(pixelFormat: .mjpeg, width: 16, height: 16), copying: [[0xFF, 0xD8, 1, 2, 3]])
        #expect(throws: VideoFrameError.self) { _ = try converter.convert(junk, to: .i420) }
    }

    @Test func unsupportedConversionsAreRefused() throws {
        let i420 = try converter.convert(try solidARGB(width: 2, height: 2, r: 1, g: 2, b: 3), to: .i420)
        #expect(throws: VideoFrameError.unsupportedConversion(from: .i420, to: .yuy2)) { _ = try converter.convert(i420, to: .yuy2) }
        #expect(throws: VideoFrameError.unsupportedConversion(from: .i420, to: .mjpeg)) { _ = try converter.convert(i420, to: .mjpeg) }
        let argb = try solidARGB(width: 2, height: 2, r: 1, g: 2, b: 3)
        #expect(throws: VideoFrameError.unsupportedConversion(from: .argb, to: .i420)) { _ = try converter.scale(argb, width: 1, height: 1) }
    }

    @Test func conversionIntoAFrameOfAnotherSizeIsRefused() throws {
        let argb = try solidARGB(width: 4, height: 4, r: 1, g: 2, b: 3)
        let dst = try VideoFramePool().makeFrame(format: .i420(width: 2, height: 2))
        #expect(throws: VideoFrameError.invalidDimensions(width: 2, height: 2)) { try converter.convert(argb, into: dst) }
    }

    @Test func boxScaleKeepsSolidColour() throws {
        let i420 = try converter.convert(try solidARGB(width: 64, height: 48, r: 0, g: 255, b: 0), to: .i420)
        let small = try converter.scale(i420, width: 32, height: 24)
        #expect(small.format.width == 32 && small.format.height == 24)
        #expect(planeBytes(small, 0).allSatisfy { abs(Int($0) - 144) <= 1 })
        #expect(planeBytes(small, 1).count == 16 * 12)
    }

    @Test func rotationFollowsOrientation() throws {
        // 4x2 luma 0...7, rotated clockwise by 90° -> 2x4.
        var frame = try VideoFrame(
            format: .i420(width: 4, height: 2), copying: [[0, 1, 2, 3, 4, 5, 6, 7], [9, 9], [9, 9]], orientation: .right)
        var up = try converter.rotateUpright(frame)
        #expect(up.orientation == .up && up.format.width == 2 && up.format.height == 4)
        #expect(planeBytes(up, 0) == [4, 0, 5, 1, 6, 2, 7, 3])
        frame.orientation = .down
        up = try converter.rotateUpright(frame)
        #expect(planeBytes(up, 0) == [7, 6, 5, 4, 3, 2, 1, 0])
        frame.orientation = .left
        up = try converter.rotateUpright(frame)
        #expect(planeBytes(up, 0) == [3, 7, 2, 6, 1, 5, 0, 4])
    }

    @Test func keepsTimestampOrientationAndMetadata() throws {
        var argb = try solidARGB(width: 2, height: 2, r: 1, g: 2, b: 3)
        argb.timestamp = .milliseconds(1234)
        try argb.setMetadata([1, 2, 3])
        let out = try converter.convert(argb, to: .i420)
        #expect(out.timestamp == .milliseconds(1234))
        #expect(out.metadata == [1, 2, 3])
    }

    /// A 16x16 JPEG of grey 0x808080 (made with ffmpeg, yuvj420p).
    static let gray16JPEG: [UInt8] = hex(
        "ffd8ffe000104a46494600010200000100010000fffe00104c61766335392e33372e31303000ffdb0043000804040404040505050505050606060606060606060606060607070708080807070706060707080808080909090808080809090a0a0a0c0c0b0b0e0e0e111114ffc4004a000100000000000000000000000000000000010100000000000000000000000000000000100100000000000000000000000000000000110100000000000000000000000000000000ffc00011080010001003012200021100031100ffda000c03010002110311003f00000fffd9"
    )
}

func hex(_ s: String) -> [UInt8] {
    var out = [UInt8](), chars = Array(s.utf8), i = 0
    while i + 1 < chars.count {
        out.append(UInt8(String(decoding: chars[i...i + 1], as: UTF8.self), radix: 16)!)
        i += 2
    }
    return out
}
