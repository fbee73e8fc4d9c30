#if canImport(Glibc)
import Glibc
#endif
import CX11
import Testing
@testable import TokKitCapture

/// Every test runs its own Xvfb (320x240x24), draws known colours through Xlib and checks captured pixels.
@Suite struct ScreenCapturerTests {
    static let red: UInt = 0xFF0000, green: UInt = 0x00FF00, blue: UInt = 0x0000FF, yellow: UInt = 0xFFFF00

    /// Starts `capturer` with a fresh recorder and waits for a first frame.
    func start(_ capturer: ScreenCapturer) throws -> ScreenFrameRecorder {
        let recorder = ScreenFrameRecorder()
        capturer.videoCaptureConsumer = recorder
        try capturer.initCapture()
        try capturer.startCapture()
        return recorder
    }

    @Test(arguments: [true, false])
    func wholeScreen(sharedMemory: Bool) throws {
        let x = try XvfbServer()
        defer { x.stop() }
        x.client.paintRoot(Self.red)
        _ = x.client.createWindow(x: 100, y: 50, width: 60, height: 40, rgb: Self.green)
        let capturer = ScreenCapturer(options: .init(display: x.display, usesSharedMemory: sharedMemory))
        defer { capturer.releaseCapture() }
        let recorder = try start(capturer)
        #expect(capturer.usesSharedMemory == sharedMemory)
        #expect(capturer.isCaptureStarted)

        let frame = try #require(recorder.waitForFrame())
        #expect(frame.format.pixelFormat == .argb)
        #expect(frame.format.width == 320 && frame.format.height == 240)
        #expect(frame.format.bytesPerRow[0] == 320 * 4)
        #expect(frame.format.estimatedFramesPerSecond == 5)
        #expect(frame.rgb(x: 0, y: 0) == Self.red)
        #expect(frame.rgb(x: 99, y: 50) == Self.red)
        #expect(frame.rgb(x: 100, y: 50) == Self.green)
        #expect(frame.rgb(x: 159, y: 89) == Self.green)
        #expect(frame.rgb(x: 160, y: 89) == Self.red)
        #expect(frame.rgb(x: 319, y: 239) == Self.red)

        let record = recorder.record
        #expect(record.allBorrowed, "frames are handed over zero-copy, borrowed")
        #expect(record.threadNames == ["tk-screen"])
        #expect(capturer.videoContentHint == .detail)
        #expect(capturer.captureSettings() == frame.format)
        #expect(record.errors.isEmpty)
    }

    @Test func drawingChangesReachTheNextFrames() throws {
        let x = try XvfbServer()
        defer { x.stop() }
        x.client.paintRoot(Self.red)
        let capturer = ScreenCapturer(options: .init(display: x.display, framesPerSecond: 30))
        defer { capturer.releaseCapture() }
        let recorder = try start(capturer)
        #expect(recorder.waitForFrame { $0.rgb(x: 10, y: 10) == Self.red } != nil)
        x.client.paintRoot(Self.blue)
        #expect(recorder.waitForFrame { $0.rgb(x: 10, y: 10) == Self.blue } != nil)
        #expect(recorder.record.timestampsIncrease)
    }

    @Test(arguments: [true, false])
    func region(sharedMemory: Bool) throws {
        let x = try XvfbServer()
        defer { x.stop() }
        x.client.paintRoot(Self.red)
        _ = x.client.createWindow(x: 100, y: 50, width: 60, height: 40, rgb: Self.green)
        let capturer = ScreenCapturer(
            source: .region(x: 90, y: 40, width: 40, height: 30),
            options: .init(display: x.display, usesSharedMemory: sharedMemory))
        defer { capturer.releaseCapture() }
        let recorder = try start(capturer)
        #expect(capturer.captureSettings().width == 40 && capturer.captureSettings().height == 30)

        let frame = try #require(recorder.waitForFrame())
        #expect(frame.format.width == 40 && frame.format.height == 30)
        #expect(frame.rgb(x: 0, y: 0) == Self.red)
        #expect(frame.rgb(x: 9, y: 10) == Self.red)
        #expect(frame.rgb(x: 10, y: 10) == Self.green)
        #expect(frame.rgb(x: 39, y: 29) == Self.green)
    }

    @Test(arguments: [true, false])
    func window(sharedMemory: Bool) throws {
        let x = try XvfbServer()
        defer { x.stop() }
        x.client.paintRoot(Self.red)
        let window = x.client.createWindow(x: 30, y: 20, width: 80, height: 60, rgb: Self.blue)
        _ = x.client.createWindow(x: 50, y: 40, width: 20, height: 10, rgb: Self.yellow, parent: window)
        let capturer = ScreenCapturer(
            source: .window(UInt(window)), options: .init(display: x.display, usesSharedMemory: sharedMemory))
        defer { capturer.releaseCapture() }
        let recorder = try start(capturer)

        let frame = try #require(recorder.waitForFrame())
        #expect(frame.format.width == 80 && frame.format.height == 60)
        #expect(frame.rgb(x: 0, y: 0) == Self.blue)
        #expect(frame.rgb(x: 49, y: 45) == Self.blue)
        #expect(frame.rgb(x: 50, y: 40) == Self.yellow)
        #expect(frame.rgb(x: 69, y: 49) == Self.yellow)
        #expect(frame.rgb(x: 79, y: 59) == Self.blue)
    }

    @Test func windowFollowsResizeAndMoves() throws {
        let x = try XvfbServer()
        defer { x.stop() }
        x.client.paintRoot(Self.red)
        let window = x.client.createWindow(x: 30, y: 20, width: 80, height: 60, rgb: Self.green)
        let capturer = ScreenCapturer(source: .window(UInt(window)), options: .init(display: x.display, framesPerSecond: 30))
        defer { capturer.releaseCapture() }
        let recorder = try start(capturer)
        #expect(recorder.waitForFrame { $0.format.width == 80 && $0.format.height == 60 } != nil)

        x.client.resize(window, width: 120, height: 90)
        let grown = try #require(recorder.waitForFrame { $0.format.width == 120 && $0.format.height == 90 })
        #expect(grown.format.bytesPerRow[0] == 120 * 4)
        #expect(grown.rgb(x: 0, y: 0) == Self.green)
        #expect(grown.rgb(x: 119, y: 89) == Self.green)
        #expect(capturer.captureSettings().width == 120 && capturer.captureSettings().height == 90)

        // Partly off the right and bottom edges: only the on-screen 20x40 part is captured.
        x.client.move(window, x: 300, y: 200)
        let clipped = try #require(recorder.waitForFrame { $0.format.width == 20 && $0.format.height == 40 })
        #expect(clipped.rgb(x: 19, y: 39) == Self.green)

        // Partly off the left and top edges.
        x.client.move(window, x: -100, y: -50)
        let topLeft = try #require(recorder.waitForFrame { $0.format.width == 20 && $0.format.height == 40 && $0.rgb(x: 0, y: 0) == Self.green })
        #expect(topLeft.rgb(x: 19, y: 39) == Self.green)
        #expect(recorder.errors.isEmpty)
    }

    @Test func unmappedWindowDeliversNothingUntilMappedAgain() throws {
        let x = try XvfbServer()
        defer { x.stop() }
        let window = x.client.createWindow(x: 30, y: 20, width: 80, height: 60, rgb: Self.green)
        let capturer = ScreenCapturer(source: .window(UInt(window)), options: .init(display: x.display, framesPerSecond: 30))
        defer { capturer.releaseCapture() }
        let recorder = try start(capturer)
        #expect(recorder.waitForFrame() != nil)
        x.client.unmap(window)
        let hidden = recorder.count
        let ticks = capturer.ticks
        #expect(XvfbServer.waitUntil { capturer.ticks >= ticks + 5 })
        #expect(recorder.count <= hidden + 1, "at most the grab in flight during the unmap delivers")
        #expect(capturer.isCaptureStarted)
        x.client.map(window)
        #expect(recorder.waitForFrame(after: recorder.count) != nil)
        #expect(recorder.errors.isEmpty)
    }

    @Test(arguments: [true, false])
    func windowDestroyedMidCaptureReportsNoSuchWindowAndStops(sharedMemory: Bool) throws {
        let x = try XvfbServer()
        defer { x.stop() }
        let window = x.client.createWindow(x: 30, y: 20, width: 80, height: 60, rgb: Self.green)
        let capturer = ScreenCapturer(
            source: .window(UInt(window)),
            options: .init(display: x.display, framesPerSecond: 30, usesSharedMemory: sharedMemory))
        defer { capturer.releaseCapture() }
        let recorder = try start(capturer)
        #expect(recorder.waitForFrame() != nil)

        x.client.destroy(window)
        #expect(XvfbServer.waitUntil { !recorder.errors.isEmpty })
        #expect(recorder.errors == [.noSuchWindow(UInt(window))])
        #expect(XvfbServer.waitUntil { !capturer.isCaptureStarted })
        let frames = recorder.count
        capturer.stopCapture()
        #expect(recorder.count == frames)
        #expect(recorder.errors.count == 1)
    }

    @Test func screenFollowsAShrinkingRoot() throws {
        let x = try XvfbServer()
        defer { x.stop() }
        x.client.paintRoot(Self.red)
        let capturer = ScreenCapturer(options: .init(display: x.display, framesPerSecond: 30))
        defer { capturer.releaseCapture() }
        let recorder = try start(capturer)
        #expect(recorder.waitForFrame { $0.format.width == 320 && $0.format.height == 240 } != nil)
        try x.shrinkScreen(width: 200, height: 150)
        let small = try #require(recorder.waitForFrame { $0.format.width == 200 && $0.format.height == 150 })
        #expect(small.rgb(x: 199, y: 149) == Self.red)
        #expect(recorder.errors.isEmpty)
    }

    @Test func regionNoLongerOnAShrunkScreenReportsInvalidRegion() throws {
        let x = try XvfbServer()
        defer { x.stop() }
        let capturer = ScreenCapturer(
            source: .region(x: 100, y: 100, width: 100, height: 80), options: .init(display: x.display, framesPerSecond: 30))
        defer { capturer.releaseCapture() }
        let recorder = try start(capturer)
        #expect(recorder.waitForFrame() != nil)
        try x.shrinkScreen(width: 200, height: 150)
        #expect(XvfbServer.waitUntil { !recorder.errors.isEmpty })
        #expect(recorder.errors == [.invalidRegion(x: 100, y: 100, width: 100, height: 80)])
        #expect(XvfbServer.waitUntil { !capturer.isCaptureStarted })
    }

    @Test func serverGoneReportsNoDisplayWithoutExiting() throws {
        let x = try XvfbServer()
        defer { x.stop() }
        let capturer = ScreenCapturer(options: .init(display: x.display, framesPerSecond: 30))
        defer { capturer.releaseCapture() }
        let recorder = try start(capturer)
        #expect(recorder.waitForFrame() != nil)
        x.crash()
        #expect(XvfbServer.waitUntil { !recorder.errors.isEmpty })
        #expect(recorder.errors == [.noDisplay(x.display)])
        #expect(XvfbServer.waitUntil { !capturer.isCaptureStarted })
    }

    @Test func unreachableDisplay() {
        #expect(throws: VideoCaptureError.noDisplay(":65001")) {
            try ScreenCapturer(options: .init(display: ":65001")).initCapture()
        }
        #expect(throws: VideoCaptureError.noDisplay("")) {
            try ScreenCapturer(options: .init(display: "")).initCapture()
        }
    }

    @Test(arguments: [
        (300, 200, 40, 40), (-1, 0, 10, 10), (0, -1, 10, 10), (0, 0, 0, 10), (0, 0, 10, -5), (0, 0, 321, 240),
        (Int.max, Int.max, Int.max, Int.max), (1, 1, Int.max, 1), (Int.min, 0, 10, 10),
    ])
    func regionOffTheScreen(region: (Int, Int, Int, Int)) throws {
        let x = try XvfbServer()
        defer { x.stop() }
        let (rx, ry, w, h) = region
        let capturer = ScreenCapturer(source: .region(x: rx, y: ry, width: w, height: h), options: .init(display: x.display))
        #expect(throws: VideoCaptureError.invalidRegion(x: rx, y: ry, width: w, height: h)) { try capturer.initCapture() }
        #expect(throws: VideoCaptureError.notInitialized) { try capturer.startCapture() }
    }

    @Test(arguments: [UInt(0x1234567), 0, UInt(UInt32.max) + 5])
    func missingWindow(id: UInt) throws {
        let x = try XvfbServer()
        defer { x.stop() }
        #expect(throws: VideoCaptureError.noSuchWindow(id)) {
            try ScreenCapturer(source: .window(id), options: .init(display: x.display)).initCapture()
        }
    }

    @Test func lifecycle() throws {
        let x = try XvfbServer()
        defer { x.stop() }
        let capturer = ScreenCapturer(options: .init(display: x.display, framesPerSecond: 30))
        #expect(throws: VideoCaptureError.notInitialized) { try capturer.startCapture() }
        let recorder = try start(capturer)
        #expect(recorder.waitForFrame() != nil)
        capturer.stopCapture()
        #expect(!capturer.isCaptureStarted)
        let stopped = recorder.count
        try capturer.startCapture()
        #expect(recorder.waitForFrame(after: stopped) != nil)
        capturer.stopCapture()
        capturer.stopCapture()
        capturer.releaseCapture()
        #expect(throws: VideoCaptureError.notInitialized) { try capturer.startCapture() }
        #expect(recorder.errors.isEmpty)
    }

    @Test func releaseRemovesTheSharedMemorySegment() throws {
        let x = try XvfbServer()
        defer { x.stop() }
        let capturer = ScreenCapturer(options: .init(display: x.display))
        _ = try start(capturer)
        let id = try #require(capturer.sharedMemorySegmentID)
        var info = shmid_ds()
        #expect(shmctl(id, IPC_STAT, &info) == 0)
        #expect(info.shm_nattch == 2, "attached here and in the X server")
        capturer.releaseCapture()
        #expect(capturer.sharedMemorySegmentID == nil)
        #expect(shmctl(id, IPC_STAT, &info) == -1, "segment \(id) still exists after releaseCapture")
    }

    @Test func releaseClosesTheDisplay() throws {
        // With -terminate (and no -noreset) Xvfb exits when its last client disconnects.
        let x = try XvfbServer(arguments: ["-terminate"])
        defer { x.stop() }
        let capturer = ScreenCapturer(options: .init(display: x.display, framesPerSecond: 30))
        let recorder = try start(capturer)
        #expect(recorder.waitForFrame() != nil)
        x.closeClient()
        // The capturer's connection alone keeps the server up: frames keep coming.
        #expect(recorder.waitForFrame(after: recorder.count) != nil)
        #expect(x.isRunning)
        capturer.releaseCapture()
        #expect(XvfbServer.waitUntil { !x.isRunning }, "Xvfb still has a client after releaseCapture")
    }
}
