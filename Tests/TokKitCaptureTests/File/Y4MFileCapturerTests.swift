import Synchronization
import Testing
@testable import TokKitCapture

@Suite struct Y4MFileCapturerTests {
    /// Writes `count` 6x4 pattern frames (file rate `fps`) and returns the path and the frames' tight planes.
    func makeFile(in dir: String, count: Int, fps: Int = 25, tail: [UInt8] = []) throws -> (String, [[[UInt8]]]) {
        let path = dir + "/clip.y4m"
        let w = try Y4MWriter(path: path)
        try w.writeHeader(Y4MStreamHeader(width: 6, height: 4, frameRate: .init(fps, 1)))
        var planes: [[[UInt8]]] = []
        for i in 0..<count {
            let f = try RendererTestKit.patternFrame(width: 6, height: 4, seed: i)
            try w.write(f)
            planes.append(RendererTestKit.tightPlanes(f))
        }
        try w.close()
        if !tail.isEmpty { try RendererTestKit.writeFile(path, try RendererTestKit.readFile(path) + tail) }
        return (path, planes)
    }

    func start(_ capturer: Y4MFileCapturer, _ collector: RendererTestKit.Collector) throws {
        capturer.videoCaptureConsumer = collector
        try capturer.initCapture()
        try capturer.startCapture()
    }

    @Test func playsEveryFrameOnceThenStopsByItself() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        let (path, planes) = try makeFile(in: dir, count: 5)
        let capturer = Y4MFileCapturer(path: path, framesPerSecond: 200)
        let collector = RendererTestKit.Collector()
        try start(capturer, collector)
        #expect(capturer.captureSettings() == .i420(width: 6, height: 4, fps: 200))
        #expect(RendererTestKit.wait { !capturer.isCaptureStarted }, "playback should end after the last frame")
        capturer.stopCapture()
        capturer.releaseCapture()
        let frames = collector.frames
        #expect(frames.map(\.planes) == planes)
        #expect(frames.allSatisfy { $0.isBorrowed && $0.format == .i420(width: 6, height: 4, fps: 25) })
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        #expect(collector.failures.isEmpty)
        #expect(capturer.framesDelivered == 5)
    }

    @Test func loopsBackToTheFirstFrame() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        let (path, planes) = try makeFile(in: dir, count: 3)
        let capturer = Y4MFileCapturer(path: path, framesPerSecond: 500, loops: true)
        let collector = RendererTestKit.Collector()
        try start(capturer, collector)
        #expect(RendererTestKit.wait { collector.count >= 8 })
        #expect(capturer.isCaptureStarted)
        capturer.releaseCapture()
        #expect(!capturer.isCaptureStarted)
        let got = collector.frames.prefix(8).map(\.planes)
        #expect(Array(got) == (0..<8).map { planes[$0 % 3] })
    }

    @Test func usesTheFilesFrameRate() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        let (path, _) = try makeFile(in: dir, count: 1, fps: 12)
        let capturer = Y4MFileCapturer(path: path)
        try capturer.initCapture()
        #expect(capturer.captureSettings().estimatedFramesPerSecond == 12)
        capturer.releaseCapture()
    }

    @Test func badFrameHeaderMidFileStopsWithCaptureDidFail() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        let (path, planes) = try makeFile(in: dir, count: 2, tail: Array("FRAMX\n".utf8) + [UInt8](repeating: 0, count: 36))
        let capturer = Y4MFileCapturer(path: path, framesPerSecond: 200, loops: true)
        let collector = RendererTestKit.Collector()
        try start(capturer, collector)
        #expect(RendererTestKit.wait { !collector.failures.isEmpty })
        #expect(RendererTestKit.wait { !capturer.isCaptureStarted })
        capturer.releaseCapture()
        #expect(collector.frames.map(\.planes) == planes)
        #expect(collector.failures == [.invalidFile(path: path, reason: MediaFileError.malformedY4MFrameHeader(frame: 2).description)])
    }

    @Test func missingAndMalformedFilesFailInitCapture() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        let missing = dir + "/missing.y4m"
        #expect(throws: VideoCaptureError.invalidFile(path: missing, reason: MediaFileError.noSuchFile(path: missing).description)) {
            try Y4MFileCapturer(path: missing).initCapture()
        }
        let bad = dir + "/bad.y4m"
        try RendererTestKit.writeFile(bad, Array("YUV4MPEG2 W4 H4 C422\n".utf8))
        #expect(throws: VideoCaptureError.invalidFile(path: bad, reason: MediaFileError.unsupportedY4MColorspace("422").description)) {
            try Y4MFileCapturer(path: bad).initCapture()
        }
        let (good, _) = try makeFile(in: dir, count: 1)
        #expect(throws: VideoCaptureError.noUsableFormat("\(good): frame rate 0.0 is outside 0.1...1000.0")) {
            try Y4MFileCapturer(path: good, framesPerSecond: 0).initCapture()
        }
        #expect(throws: VideoCaptureError.notInitialized) { try Y4MFileCapturer(path: good).startCapture() }
        let released = Y4MFileCapturer(path: good)
        try released.initCapture()
        released.releaseCapture()
        #expect(throws: VideoCaptureError.notInitialized) { try released.startCapture() }
    }

    /// Calls `action` from inside `consumeFrame`, on the capture thread, at the second frame.
    final class ReleasingConsumer: VideoCaptureConsumer {
        let frames = Atomic<Int>(0)
        let action: @Sendable () -> Void
        init(action: @escaping @Sendable () -> Void) { self.action = action }
        func consumeFrame(_ frame: VideoFrame) {
            if frames.add(1, ordering: .relaxed).newValue == 2 { action() }
        }
    }

    @Test func releasingFromInsideTheConsumerStopsWithoutDeadlock() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        let (path, _) = try makeFile(in: dir, count: 3)
        let capturer = Y4MFileCapturer(path: path, framesPerSecond: 200, loops: true)
        let consumer = ReleasingConsumer { [weak capturer] in capturer?.releaseCapture() }
        capturer.videoCaptureConsumer = consumer
        try capturer.initCapture()
        try capturer.startCapture()
        #expect(RendererTestKit.wait { !capturer.isCaptureStarted })
        #expect(consumer.frames.load(ordering: .relaxed) == 2)
        #expect(throws: VideoCaptureError.notInitialized) { try capturer.startCapture() }
    }

    @Test func stopAndRestartResumesWhereItStopped() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        let (path, planes) = try makeFile(in: dir, count: 6)
        let capturer = Y4MFileCapturer(path: path, framesPerSecond: 200)
        let collector = RendererTestKit.Collector()
        try start(capturer, collector)
        #expect(RendererTestKit.wait { collector.count >= 2 })
        capturer.stopCapture()
        let before = collector.count
        try capturer.startCapture()
        #expect(RendererTestKit.wait { !capturer.isCaptureStarted })
        capturer.releaseCapture()
        #expect(before >= 2)
        #expect(collector.frames.map(\.planes) == planes)
    }
}
