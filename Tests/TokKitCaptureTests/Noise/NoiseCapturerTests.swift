import Testing
@testable import TokKitCapture

@Suite struct NoiseCapturerTests {
    func start(_ capturer: NoiseCapturer, _ collector: RendererTestKit.Collector) throws {
        capturer.videoCaptureConsumer = collector
        try capturer.initCapture()
        try capturer.startCapture()
    }

    @Test func framesHaveTheRequestedSizeAndRate() throws {
        let capturer = NoiseCapturer(width: 160, height: 90, framesPerSecond: 50)
        let collector = RendererTestKit.Collector(keepPixels: false)
        try start(capturer, collector)
        #expect(capturer.isCaptureStarted)
        let enough = RendererTestKit.wait(timeout: .seconds(20)) { collector.count >= 26 }
        capturer.releaseCapture()
        #expect(!capturer.isCaptureStarted)
        try #require(enough, "fewer than 26 frames in 20 s")
        let frames = collector.frames
        #expect(frames.allSatisfy { $0.format == .argb(width: 160, height: 90, fps: 50) && $0.isBorrowed })
        #expect(capturer.captureSettings() == .argb(width: 160, height: 90, fps: 50))
        // Mean rate over 25 intervals. The schedule never bursts, so it cannot exceed 50 fps by more than clock
        // jitter; the lower bound is loose because the machine is shared.
        let elapsed = (frames[25].timestamp - frames[0].timestamp).seconds
        let rate = 25 / elapsed
        #expect(rate <= 50 * 1.1 && rate >= 50 * 0.4, "measured \(rate) fps")
        #expect(capturer.framesDelivered == frames.count)
    }

    @Test func framesDifferAndAreOpaque() throws {
        let capturer = NoiseCapturer(width: 33, height: 17, framesPerSecond: 200)
        let collector = RendererTestKit.Collector()
        try start(capturer, collector)
        let enough = RendererTestKit.wait { collector.count >= 3 }
        capturer.releaseCapture()
        try #require(enough)
        let pixels = collector.frames.prefix(3).map { $0.planes[0] }
        #expect(pixels.allSatisfy { $0.count == 33 * 17 * 4 })  // odd pixel count: the tail pixel is filled too
        #expect(pixels[0] != pixels[1] && pixels[1] != pixels[2] && pixels[0] != pixels[2])
        for p in pixels {
            #expect(stride(from: 3, to: p.count, by: 4).allSatisfy { p[$0] == 0xFF }, "alpha must be opaque")
            let colour = stride(from: 0, to: p.count, by: 4).flatMap { p[$0..<($0 + 3)] }
            let mean = Double(colour.reduce(0) { $0 + Int($1) }) / Double(colour.count)
            #expect(abs(mean - 127.5) < 8, "colour bytes should be uniform, mean \(mean)")
        }
    }

    @Test func equalSeedsGiveEqualFrames() throws {
        func firstFrame(seed: UInt64) throws -> [UInt8] {
            let capturer = NoiseCapturer(width: 8, height: 8, framesPerSecond: 100, seed: seed)
            let collector = RendererTestKit.Collector()
            try start(capturer, collector)
            let got = RendererTestKit.wait { collector.count >= 1 }
            capturer.releaseCapture()
            try #require(got)
            return collector.frames[0].planes[0]
        }
        #expect(try firstFrame(seed: 42) == firstFrame(seed: 42))
        #expect(try firstFrame(seed: 42) != firstFrame(seed: 43))
    }

    @Test func invalidSettingsAndOrderAreTypedErrors() throws {
        #expect(throws: VideoCaptureError.noUsableFormat("noise: size 0x480 is outside 1...16384")) {
            try NoiseCapturer(width: 0).initCapture()
        }
        #expect(throws: VideoCaptureError.noUsableFormat("noise: size 640x20000 is outside 1...16384")) {
            try NoiseCapturer(height: 20000).initCapture()
        }
        #expect(throws: VideoCaptureError.noUsableFormat("noise: frame rate 0.0 is outside 0.1...1000.0")) {
            try NoiseCapturer(framesPerSecond: 0).initCapture()
        }
        #expect(throws: VideoCaptureError.notInitialized) { try NoiseCapturer().startCapture() }
        let released = NoiseCapturer(width: 4, height: 4)
        try released.initCapture()
        released.releaseCapture()
        #expect(throws: VideoCaptureError.notInitialized) { try released.startCapture() }
    }

    @Test func previewsThroughTheGrayscaleRenderer() throws {
        let renderer = GrayscaleRenderer()
        let preview = LocalPreview(capturer: NoiseCapturer(width: 64, height: 48, framesPerSecond: 100), renderer: renderer)
        try preview.start()
        let enough = RendererTestKit.wait { renderer.frameCount >= 5 }
        preview.stop()
        try #require(enough)
        #expect(preview.framesDropped == 0)
        #expect(renderer.lastSize! == (64, 48))
        let image = try #require(renderer.lastImage())
        // Random RGB through BT.601 limited range: luma within 16...235 and not constant.
        #expect(image.pixels.allSatisfy { (16...235).contains($0) })
        #expect(Set(image.pixels).count > 50)
    }
}
