import Testing
@testable import TokKitCapture

@Suite struct GrayscaleRendererTests {
    /// A 6x4 I420 frame with padded rows, luma a gradient, chroma far from neutral (it must not leak into RGB).
    func knownFrame() throws -> (VideoFrame, [UInt8]) {
        let luma = (0..<24).map { UInt8(16 + $0 * 9) }
        var y = [UInt8](repeating: 0xAA, count: 8 * 4)
        for r in 0..<4 { for c in 0..<6 { y[r * 8 + c] = luma[r * 6 + c] } }
        let format = VideoFormat(pixelFormat: .i420, width: 6, height: 4, bytesPerRow: [8, 4, 4])
        let frame = try VideoFrame(
            format: format, copying: [y, [UInt8](repeating: 30, count: 8), [UInt8](repeating: 220, count: 8)])
        return (frame, luma)
    }

    @Test func keepsTheLumaAndRendersItAsEqualRGB() throws {
        let renderer = GrayscaleRenderer()
        #expect(renderer.lastImage() == nil && renderer.lastSize == nil && renderer.frameCount == 0)
        let (frame, luma) = try knownFrame()
        renderer.renderVideoFrame(frame)
        let image = try #require(renderer.lastImage())
        #expect(image.width == 6 && image.height == 4)
        #expect(image.pixels == luma)
        #expect(image[5, 3] == luma[23] && image[6, 0] == nil)
        let rgb = image.rgbPixels()
        #expect(rgb.count == 72)
        for i in 0..<24 { #expect(rgb[3 * i] == luma[i] && rgb[3 * i + 1] == luma[i] && rgb[3 * i + 2] == luma[i]) }
        #expect(renderer.frameCount == 1)
        #expect(renderer.lastSize! == (6, 4))
    }

    @Test func followsSizeChangesAndOtherPixelFormats() throws {
        let renderer = GrayscaleRenderer()
        renderer.renderVideoFrame(try RendererTestKit.uniformFrame(width: 8, height: 8, y: 50, u: 128, v: 128))
        let nv12 = try VideoFrame(
            format: .nv12(width: 4, height: 2), copying: [[1, 2, 3, 4, 5, 6, 7, 8], [0, 0, 0, 0]])
        renderer.renderVideoFrame(nv12)
        #expect(renderer.lastImage()?.pixels == [1, 2, 3, 4, 5, 6, 7, 8])
        // Mid gray ARGB through libyuv's BT.601 limited range: Y = (220 · 128 + 128) >> 8 + 16 = 126.
        let argb = try VideoFrame(format: .argb(width: 4, height: 4), copying: [[UInt8](repeating: 128, count: 64)])
        renderer.renderVideoFrame(argb)
        #expect(renderer.lastImage()?.pixels == [UInt8](repeating: 126, count: 16))
        let badJPEG = try VideoFrame(format: VideoFormat(pixelFormat: .mjpeg, width: 4, height: 4), copying: [[1, 2, 3]])
        renderer.renderVideoFrame(badJPEG)
        #expect(renderer.frameCount == 3)
        #expect(renderer.framesDropped == 1)
        #expect(renderer.lastSize! == (4, 4))
    }

    @Test func writesPGMAndPNGThatFFmpegReadsBack() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        let renderer = GrayscaleRenderer()
        let (frame, luma) = try knownFrame()
        renderer.renderVideoFrame(frame)

        try renderer.writeImage(to: dir + "/y.pgm", format: .pgm)
        #expect(try RendererTestKit.readFile(dir + "/y.pgm") == Array("P5\n6 4\n255\n".utf8) + luma)

        try renderer.writeImage(to: dir + "/y.png")
        let gray = try RendererTestKit.run("ffmpeg", ["-v", "error", "-i", dir + "/y.png", "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        #expect(gray == luma)

        try renderer.writeImage(to: dir + "/rgb.png", format: .pngRGB)
        let rgb = try RendererTestKit.run("ffmpeg", ["-v", "error", "-i", dir + "/rgb.png", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        #expect(rgb == luma.flatMap { [$0, $0, $0] })
    }

    @Test func writeErrorsAreTyped() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        let renderer = GrayscaleRenderer()
        #expect(throws: MediaFileError.noImage) { try renderer.writeImage(to: dir + "/x.png") }
        renderer.renderVideoFrame(try RendererTestKit.uniformFrame(width: 2, height: 2, y: 1, u: 2, v: 3))
        #expect(throws: MediaFileError.noSuchFile(path: dir + "/missing/x.png")) { try renderer.writeImage(to: dir + "/missing/x.png") }
        #expect(throws: MediaFileError.isDirectory(path: dir)) { try renderer.writeImage(to: dir, format: .pgm) }
    }
}
