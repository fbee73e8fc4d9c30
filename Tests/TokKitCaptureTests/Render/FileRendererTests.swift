import Dispatch
import Synchronization
import Testing
@testable import TokKitCapture

@Suite struct FileRendererTests {
    /// Expects the Y4M file at `path` to hold exactly `frames`, in order, pixel for pixel.
    static func expectFile(_ path: String, holds frames: [VideoFrame]) throws {
        let reader = try Y4MReader(path: path)
        for f in frames {
            #expect(try reader.readFrame())
            #expect(RendererTestKit.tightPlanes(reader.frame()) == RendererTestKit.tightPlanes(f))
        }
        #expect(try !reader.readFrame())
    }

    @Test func roundTripsThroughY4MFileCapturer() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        let path = dir + "/out.y4m"
        let renderer = try FileRenderer(path: path)
        // Odd size (chroma rounded up) and padded rows (dropped in the file).
        let frames = try (0..<7).map { try RendererTestKit.patternFrame(width: 65, height: 49, seed: $0, padding: 11) }
        for f in frames { renderer.renderVideoFrame(f) }
        try renderer.close()
        #expect(renderer.framesWritten == 7 && renderer.framesDropped == 0 && renderer.error == nil)
        #expect(renderer.streamSize! == (65, 49))

        let capturer = Y4MFileCapturer(path: path, framesPerSecond: 500)
        let collector = RendererTestKit.Collector()
        capturer.videoCaptureConsumer = collector
        try capturer.initCapture()
        #expect(capturer.captureSettings().width == 65 && capturer.captureSettings().height == 49)
        try capturer.startCapture()
        #expect(RendererTestKit.wait { !capturer.isCaptureStarted })
        capturer.releaseCapture()
        #expect(collector.failures.isEmpty)
        #expect(collector.frames.map(\.planes) == frames.map(RendererTestKit.tightPlanes))
    }

    @Test func ffprobeAndFFmpegReadTheFile() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        let path = dir + "/out.y4m"
        let renderer = try FileRenderer(path: path)
        let frames = try (0..<5).map { try RendererTestKit.patternFrame(width: 64, height: 48, seed: $0, fps: 30) }
        for f in frames { renderer.renderVideoFrame(f) }
        try renderer.close()

        let probe = try RendererTestKit.run("ffprobe", [
            "-v", "error", "-count_frames", "-select_streams", "v:0",
            "-show_entries", "stream=codec_name,width,height,r_frame_rate,nb_read_frames", "-of", "default=noprint_wrappers=1", path,
        ])
        let fields = Set(String(decoding: probe, as: UTF8.self).split(separator: "\n").map(String.init))
        #expect(fields == ["codec_name=rawvideo", "width=64", "height=48", "r_frame_rate=30/1", "nb_read_frames=5"])

        let decoded = try RendererTestKit.run("ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        #expect(decoded == frames.flatMap { RendererTestKit.tightPlanes($0).flatMap { $0 } })
    }

    @Test func laterSizesAreScaledToTheFirst() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        let path = dir + "/out.y4m"
        let renderer = try FileRenderer(path: path, framesPerSecond: 15)
        renderer.renderVideoFrame(try RendererTestKit.uniformFrame(width: 64, height: 48, y: 50, u: 100, v: 150))
        renderer.renderVideoFrame(try RendererTestKit.uniformFrame(width: 32, height: 24, y: 200, u: 60, v: 70))
        renderer.renderVideoFrame(try RendererTestKit.uniformFrame(width: 100, height: 10, y: 90, u: 91, v: 92))
        // ARGB is converted, a rotated frame turned upright (48x64 shown as 64x48: no scaling needed).
        renderer.renderVideoFrame(try VideoFrame(format: .argb(width: 64, height: 48), copying: [[UInt8](repeating: 128, count: 64 * 48 * 4)]))
        var rotated = try RendererTestKit.uniformFrame(width: 48, height: 64, y: 33, u: 44, v: 55)
        rotated.orientation = .right
        renderer.renderVideoFrame(rotated)
        try renderer.close()
        #expect(renderer.framesWritten == 5)

        let reader = try Y4MReader(path: path)
        #expect(reader.header == Y4MStreamHeader(width: 64, height: 48, frameRate: .init(15, 1)))
        let expected: [(UInt8, UInt8, UInt8)] = [(50, 100, 150), (200, 60, 70), (90, 91, 92), (126, 128, 128), (33, 44, 55)]
        for (y, u, v) in expected {
            #expect(try reader.readFrame())
            let planes = RendererTestKit.tightPlanes(reader.frame())
            #expect(planes == [[UInt8](repeating: y, count: 64 * 48), [UInt8](repeating: u, count: 32 * 24), [UInt8](repeating: v, count: 32 * 24)])
        }
        #expect(try !reader.readFrame())
    }

    @Test func aFullQueueMakesRenderingWaitInsteadOfDropping() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        let renderer = try FileRenderer(path: dir + "/out.y4m", queueDepth: 1, queuePolicy: .waitForDisk)
        let frames = try (0..<40).map { try RendererTestKit.patternFrame(width: 32, height: 32, seed: $0) }
        for f in frames { renderer.renderVideoFrame(f) }
        try renderer.close()
        #expect(renderer.framesWritten == 40 && renderer.framesDropped == 0 && renderer.framesSkipped == 0)
        try Self.expectFile(dir + "/out.y4m", holds: frames)
    }

    /// Holds the writer thread in its first write until released (the test seam for a slow disk); later writes
    /// pass.
    final class SlowDisk: Sendable {
        let entered = DispatchSemaphore(value: 0)
        private let released = DispatchSemaphore(value: 0)
        private let open = Atomic<Bool>(false)

        var hook: @Sendable () -> Void {
            { [self] in
                guard !open.load(ordering: .acquiring) else { return }
                entered.signal()
                released.wait()
            }
        }

        func release() {
            open.store(true, ordering: .releasing)
            released.signal()
        }
    }

    /// Renders `frames` on another thread; true when every call returned within 10 s.
    static func renderReturns(_ renderer: FileRenderer, _ frames: [VideoFrame]) -> Bool {
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            for f in frames { renderer.renderVideoFrame(f) }
            done.signal()
        }
        return done.wait(timeout: .now() + 10) == .success
    }

    @Test func aSlowDiskDoesNotBlockRenderingAndTheNewestFramesWin() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        let disk = SlowDisk()
        let depth = 3
        let renderer = try FileRenderer(path: dir + "/out.y4m", framesPerSecond: nil, snapshots: nil,
                                        queueDepth: depth, queuePolicy: .newestWins, beforeEachWrite: disk.hook)
        let frames = try (0..<20).map { try RendererTestKit.patternFrame(width: 32, height: 32, seed: $0) }
        // Frame 0 reaches the writer, which then hangs in its write.
        renderer.renderVideoFrame(frames[0])
        let entered = disk.entered.wait(timeout: .now() + 10) == .success
        #expect(entered, "the writer never started writing")
        // Nineteen more frames while the disk is stuck: every call returns.
        let returned = Self.renderReturns(renderer, Array(frames[1...]))
        disk.release()  // whatever happened, so close() cannot hang
        #expect(returned, "renderVideoFrame blocked on the slow disk")
        #expect(renderer.framesSkipped == 19 - depth && renderer.framesDropped == 19 - depth)
        try renderer.close()
        #expect(renderer.framesReceived == 20 && renderer.framesWritten == 1 + depth)
        #expect(renderer.error == nil)

        // The file holds frame 0 and the newest `depth` frames, in order, intact.
        try Self.expectFile(dir + "/out.y4m", holds: [frames[0]] + frames[(20 - depth)...])
    }

    @Test func closeWritesEveryQueuedFrameOfASlowDisk() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        let disk = SlowDisk()
        let renderer = try FileRenderer(path: dir + "/out.y4m", framesPerSecond: 30, snapshots: nil, queueDepth: 4,
                                        queuePolicy: .newestWins, beforeEachWrite: disk.hook)
        let frames = try (0..<5).map { try RendererTestKit.patternFrame(width: 16, height: 16, seed: $0) }
        renderer.renderVideoFrame(frames[0])
        #expect(disk.entered.wait(timeout: .now() + 10) == .success)
        for f in frames[1...] { renderer.renderVideoFrame(f) }  // exactly fills the queue: nothing dropped
        #expect(renderer.framesWritten == 0)
        disk.release()
        try renderer.close()
        #expect(renderer.framesWritten == 5 && renderer.framesSkipped == 0 && renderer.framesDropped == 0)
        try Self.expectFile(dir + "/out.y4m", holds: frames)
    }

    @Test func copiesBorrowedFramesBeforeReturning() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        // Six frames never fill eight places: nothing is dropped whatever the disk does.
        let renderer = try FileRenderer(path: dir + "/out.y4m", queueDepth: 8)
        var memory = [UInt8](repeating: 7, count: 4 * 4 + 2 * 4)
        let lease = FrameLease()
        for _ in 0..<6 {
            try memory.withUnsafeBytes { m in
                try lease.lend(
                    format: .i420(width: 4, height: 4), borrowing: .init(rebasing: m[0..<16]), .init(rebasing: m[16..<20]),
                    .init(rebasing: m[20..<24])
                ) { frame in renderer.renderVideoFrame(frame) }
            }
            for i in memory.indices { memory[i] = 0xEE }  // the capturer reuses its buffer at once
        }
        try renderer.close()
        let reader = try Y4MReader(path: dir + "/out.y4m")
        #expect(try reader.readFrame())
        #expect(RendererTestKit.tightPlanes(reader.frame()) == [[UInt8](repeating: 7, count: 16), [7, 7, 7, 7], [7, 7, 7, 7]])
    }

    @Test func writesNumberedSnapshots() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        let gray = try FileRenderer(path: dir + "/g.y4m", snapshots: .init(every: 2, pathPrefix: dir + "/g-", format: .png))
        let frames = try (0..<5).map { try RendererTestKit.patternFrame(width: 20, height: 10, seed: $0) }
        for f in frames { gray.renderVideoFrame(f) }
        try gray.close()
        #expect(gray.snapshotsWritten == 3)
        for i in [0, 2, 4] {
            let decoded = try RendererTestKit.run("ffmpeg", ["-v", "error", "-i", dir + "/g-00000\(i).png", "-f", "rawvideo", "-pix_fmt", "gray", "-"])
            #expect(decoded == RendererTestKit.tightPlanes(frames[i])[0])
        }
        #expect(throws: (any Error).self) { try RendererTestKit.readFile(dir + "/g-000001.png") }

        // RGB snapshots go through libyuv: BT.601 limited-range pure red is Y 81, U 90, V 240.
        let rgb = try FileRenderer(path: dir + "/c.y4m", snapshots: .init(every: 1, pathPrefix: dir + "/c-"))
        rgb.renderVideoFrame(try RendererTestKit.uniformFrame(width: 8, height: 8, y: 81, u: 90, v: 240))
        try rgb.close()
        let pixels = try RendererTestKit.run("ffmpeg", ["-v", "error", "-i", dir + "/c-000000.png", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        #expect(pixels.count == 8 * 8 * 3)
        for p in stride(from: 0, to: pixels.count, by: 3) {
            #expect(pixels[p] > 240 && pixels[p + 1] < 16 && pixels[p + 2] < 16, "expected red, got \(pixels[p..<(p + 3)])")
        }
    }

    @Test func unwritablePathsAndSnapshotFailuresAreTypedErrors() throws {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        #expect(throws: MediaFileError.noSuchFile(path: dir + "/none/out.y4m")) { try FileRenderer(path: dir + "/none/out.y4m") }
        #expect(throws: MediaFileError.isDirectory(path: dir)) { try FileRenderer(path: dir) }
        #expect(throws: MediaFileError.invalidArgument("queue depth 0 is below 1")) { try FileRenderer(path: dir + "/x.y4m", queueDepth: 0) }
        #expect(throws: MediaFileError.invalidArgument("snapshot interval 0 is below 1")) {
            try FileRenderer(path: dir + "/x.y4m", snapshots: .init(every: 0, pathPrefix: dir))
        }

        let renderer = try FileRenderer(path: dir + "/v.y4m", snapshots: .init(every: 1, pathPrefix: dir + "/none/s-"))
        for i in 0..<3 { renderer.renderVideoFrame(try RendererTestKit.patternFrame(width: 8, height: 8, seed: i)) }
        #expect(throws: MediaFileError.noSuchFile(path: dir + "/none/s-000000.png")) { try renderer.close() }
        #expect(renderer.framesWritten == 3, "a snapshot failure does not stop the recording")
        #expect(renderer.snapshotsWritten == 0)
        renderer.renderVideoFrame(try RendererTestKit.patternFrame(width: 8, height: 8, seed: 9))
        #expect(renderer.framesDropped == 1, "frames after close() are dropped")
        #expect(renderer.framesReceived == 4)
    }
}
