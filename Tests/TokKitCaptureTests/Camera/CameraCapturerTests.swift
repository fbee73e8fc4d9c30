import Testing
@testable import TokKitCapture

/// CameraCapturer against the simulated driver: the real capture path (negotiation, mmap streaming, poll,
/// DQBUF/QBUF, libyuv conversion) on frames whose every pixel is known.
@Suite struct CameraCapturerTests {
    static let path0 = "/dev/video0"
    static let path1 = "/dev/video1"

    /// A capturer with a recording consumer, initialized and started.
    func started(
        _ driver: SimulatedV4L2Driver, camera: CameraSelector = .index(0),
        preferences: CameraPreferences = CameraPreferences(width: 320, height: 240, framesPerSecond: 60)
    ) throws -> (CameraCapturer, RecordingConsumer) {
        let capturer = CameraCapturer(camera: camera, preferences: preferences, driver: driver)
        let consumer = RecordingConsumer()
        capturer.videoCaptureConsumer = consumer
        try capturer.initCapture()
        try capturer.startCapture()
        return (capturer, consumer)
    }

    static let sources: [FourCC] = [.nv12, .yu12, .yuyv, .mjpeg]
    static let outputs: [CameraPreferences.OutputFormat] = [.i420, .nv12]

    @Test(arguments: sources, outputs)
    func framesArriveWithSizeContentAndBufferTimestamps(source: FourCC, output: CameraPreferences.OutputFormat) throws {
        let driver = SimulatedV4L2Driver([.simple(path: Self.path0, fourCC: source, width: 320, height: 240, fps: 60, marker: 0x5A)])
        let prefs = CameraPreferences(width: 320, height: 240, framesPerSecond: 60, outputFormat: output)
        let (capturer, consumer) = try started(driver, preferences: prefs)
        defer { capturer.releaseCapture() }
        let timing = try #require(driver.streamTiming(Self.path0))
        #expect(consumer.waitForFrames(6), "frames did not arrive")
        capturer.stopCapture()

        #expect(capturer.captureSettings().pixelFormat == output.pixelFormat)
        #expect(capturer.captureSettings().estimatedFramesPerSecond == 60)
        let tolerance: Int = source == .mjpeg ? 6 : 0
        var previous: RecordingConsumer.Frame?
        for frame in consumer.frames {
            #expect(frame.format.pixelFormat == output.pixelFormat)
            #expect(frame.format.width == 320 && frame.format.height == 240)
            #expect(!frame.isBorrowed, "frames must come from pooled memory")
            #expect(frame.marker == 0x5A)
            for (bar, (y, u, v)) in frame.bars.enumerated() {
                let want = SimulatedPattern.bars[bar]
                #expect(abs(Int(y) - Int(want.y)) <= tolerance, "bar \(bar) luma \(y), want \(want.y)")
                #expect(abs(Int(u) - Int(want.u)) <= tolerance + (source == .mjpeg ? 4 : 0), "bar \(bar) U \(u), want \(want.u)")
                #expect(abs(Int(v) - Int(want.v)) <= tolerance + (source == .mjpeg ? 4 : 0), "bar \(bar) V \(v), want \(want.v)")
            }
            // The timestamp is the buffer's: STREAMON time + (sequence + 1) intervals, in microseconds.
            let expected = (timing.start + timing.interval * (Int(frame.counter) + 1)).nanoseconds / 1000
            #expect(frame.timestamp.nanoseconds == expected * 1000)
            #expect(frame.timestamp <= frame.receivedAt)
            if let previous {
                #expect(frame.counter > previous.counter)
                #expect(frame.timestamp > previous.timestamp)
            }
            previous = frame
        }
        #expect(!consumer.sawOverlap)
    }

    @Test func drainsUntilEAGAINAndKeepsStreaming() throws {
        let driver = SimulatedV4L2Driver([.simple(path: Self.path0, fps: 120)])
        let (capturer, consumer) = try started(driver)
        defer { capturer.releaseCapture() }
        #expect(consumer.waitForFrames(10))
        #expect(driver.againCount > 0, "the capturer never met EAGAIN")
        #expect(consumer.failures.isEmpty)
        #expect(capturer.isCaptureStarted)
    }

    @Test func paddedRowsAreHonoured() throws {
        var camera = SimulatedCamera.simple(path: Self.path0, fourCC: .nv12, width: 200, height: 120, fps: 60)
        camera.rowAlignment = 64
        let driver = SimulatedV4L2Driver([camera])
        let (capturer, consumer) = try started(driver, preferences: .init(width: 200, height: 120, framesPerSecond: 60))
        defer { capturer.releaseCapture() }
        #expect(driver.currentFormat(Self.path0)?.bytesPerLine == 256)
        #expect(consumer.waitForFrames(3))
        let frame = try #require(consumer.frames.last)
        #expect(frame.format.bytesPerRow == [200, 100, 100])
        #expect(frame.bars.map(\.y) == SimulatedPattern.bars.map(\.y))
        #expect(frame.bars.map(\.u) == SimulatedPattern.bars.map(\.u))
    }

    @Test func framesFlaggedBadByTheDriverAreDropped() throws {
        var camera = SimulatedCamera.simple(path: Self.path0, fps: 120)
        camera.corruptEvery = 2
        let driver = SimulatedV4L2Driver([camera])
        let (capturer, consumer) = try started(driver)
        defer { capturer.releaseCapture() }
        #expect(consumer.waitForFrames(5))
        #expect(capturer.framesDropped > 0)
        // Frame k is flagged when (k + 1) is even: only even counters may arrive.
        #expect(consumer.frames.allSatisfy { $0.counter % 2 == 0 })
        #expect(consumer.failures.isEmpty)
    }

    @Test func unplugMidStreamReportsStopsAndReleasesEverything() throws {
        let driver = SimulatedV4L2Driver([.simple(path: Self.path0)])
        let (capturer, consumer) = try started(driver)
        defer { capturer.releaseCapture() }
        #expect(consumer.waitForFrames(3))
        #expect(driver.liveMappingCount > 0)

        driver.unplug(Self.path0)
        #expect(consumer.wait { _, failures in !failures.isEmpty }, "captureDidFail was not called")
        #expect(consumer.failures == [.deviceUnplugged(Self.path0)])
        // The capture thread released the descriptor and every mapping before reporting.
        #expect(driver.openDescriptorCount == 0)
        #expect(driver.liveMappingCount == 0)
        #expect(!capturer.isCaptureStarted)
        #expect(throws: VideoCaptureError.deviceUnplugged(Self.path0)) { try capturer.startCapture() }
        capturer.stopCapture()
        #expect(!consumer.sawFrameAfterFailure)

        // Plugged back in, the same capturer recovers.
        driver.plug(.simple(path: Self.path0))
        try capturer.initCapture()
        try capturer.startCapture()
        let before = consumer.frameCount
        #expect(consumer.waitForFrames(2, after: before))
        capturer.releaseCapture()
        #expect(driver.openDescriptorCount == 0 && driver.liveMappingCount == 0)
    }

    @Test func busyDeviceIsATypedError() throws {
        let driver = SimulatedV4L2Driver([.simple(path: Self.path0)])
        let first = CameraCapturer(camera: .path(Self.path0), driver: driver)
        try first.initCapture()
        let second = CameraCapturer(camera: .path(Self.path0), driver: driver)
        #expect(throws: VideoCaptureError.deviceBusy(Self.path0)) { try second.initCapture() }
        first.releaseCapture()
        try second.initCapture()
        second.releaseCapture()

        driver.setHeldByAnotherProcess(Self.path0, true)
        #expect(throws: VideoCaptureError.deviceBusy(Self.path0)) { try first.initCapture() }
        #expect(driver.openDescriptorCount == 0)
    }

    @Test func missingDevicesAndBadCallsAreTypedErrors() throws {
        let driver = SimulatedV4L2Driver([.simple(path: Self.path0)])
        #expect(throws: VideoCaptureError.noSuchDevice("/dev/video7")) {
            try CameraCapturer(camera: .path("/dev/video7"), driver: driver).initCapture()
        }
        #expect(throws: VideoCaptureError.noSuchDevice("camera #3 (1 found)")) {
            try CameraCapturer(camera: .index(3), driver: driver).initCapture()
        }
        #expect(throws: VideoCaptureError.noSuchDevice("no video devices")) {
            try CameraCapturer(driver: SimulatedV4L2Driver()).initCapture()
        }
        #expect(throws: VideoCaptureError.notInitialized) {
            try CameraCapturer(driver: driver).startCapture()
        }
        var denied = SimulatedCamera.simple(path: Self.path1)
        denied.permissionDenied = true
        driver.plug(denied)
        #expect(throws: VideoCaptureError.permissionDenied(Self.path1)) {
            try CameraCapturer(camera: .path(Self.path1), driver: driver).initCapture()
        }
        var meta = SimulatedCamera.simple(path: "/dev/video2")
        meta.isMetadataNode = true
        driver.plug(meta)
        #expect(throws: VideoCaptureError.noSuchDevice("/dev/video2 (not a video capture device)")) {
            try CameraCapturer(camera: .path("/dev/video2"), driver: driver).initCapture()
        }
        let unusable = SimulatedCamera(path: "/dev/video3", formats: [
            CameraFormat(fourCC: FourCC("RGB3"), name: "RGB3", sizes: [CameraFrameSize(width: 64, height: 64, intervals: [.fps(30)])]),
        ])
        driver.plug(unusable)
        #expect(throws: VideoCaptureError.noUsableFormat("/dev/video3")) {
            try CameraCapturer(camera: .path("/dev/video3"), driver: driver).initCapture()
        }
        #expect(driver.openDescriptorCount == 0)
        #expect(driver.liveMappingCount == 0)
    }

    @Test func switchCameraWhileCapturingKeepsFramesComing() throws {
        let driver = SimulatedV4L2Driver([
            .simple(path: Self.path0, fourCC: .nv12, width: 320, height: 240, fps: 60, marker: 1),
            .simple(path: Self.path1, fourCC: .yuyv, width: 640, height: 480, fps: 60, marker: 2),
        ])
        let (capturer, consumer) = try started(driver)
        defer { capturer.releaseCapture() }
        #expect(consumer.wait { frames, _ in frames.count >= 3 })
        #expect(consumer.frames.allSatisfy { $0.marker == 1 && $0.format.width == 320 })

        try capturer.switchCamera(to: .index(1))
        #expect(capturer.isCaptureStarted)
        #expect(capturer.currentCamera?.path == Self.path1)
        #expect(capturer.captureSettings().width == 640)
        #expect(consumer.wait { frames, _ in frames.suffix(3).count == 3 && frames.suffix(3).allSatisfy { $0.marker == 2 } })
        // Once the new camera's frames start, no frame of the old one follows.
        let frames = consumer.frames
        let firstNew = try #require(frames.firstIndex { $0.marker == 2 })
        #expect(frames[firstNew...].allSatisfy { $0.marker == 2 && $0.format.width == 640 && $0.format.height == 480 })
        #expect(!consumer.sawOverlap)
        #expect(driver.openDescriptorCount == 1, "the old camera's descriptor was not closed")

        // A failed swap changes nothing.
        #expect(throws: VideoCaptureError.noSuchDevice("/dev/video9")) { try capturer.switchCamera(to: .path("/dev/video9")) }
        #expect(capturer.currentCamera?.path == Self.path1)
        let count = consumer.frameCount
        #expect(consumer.waitForFrames(2, after: count))
        // Swapping to the camera in use does nothing.
        let opens = driver.openCount
        try capturer.switchCamera(to: .path(Self.path1))
        #expect(driver.openCount == opens)
    }

    @Test func switchCameraBeforeCapturing() throws {
        let driver = SimulatedV4L2Driver([.simple(path: Self.path0, marker: 1), .simple(path: Self.path1, marker: 2)])
        let capturer = CameraCapturer(driver: driver)
        try capturer.switchCamera(to: .index(1))
        #expect(driver.openCount == 0)
        let consumer = RecordingConsumer()
        capturer.videoCaptureConsumer = consumer
        try capturer.initCapture()
        try capturer.switchCamera(to: .index(0))
        #expect(driver.openDescriptorCount == 1)
        try capturer.startCapture()
        #expect(consumer.waitForFrames(2))
        #expect(consumer.frames.allSatisfy { $0.marker == 1 })
        capturer.releaseCapture()
    }

    @Test func startStopReleaseCyclesLeaveNothingBehind() throws {
        let driver = SimulatedV4L2Driver([.simple(path: Self.path0, fps: 120)])
        let consumer = RecordingConsumer()
        for _ in 0..<4 {
            let capturer = CameraCapturer(driver: driver)
            capturer.videoCaptureConsumer = consumer
            try capturer.initCapture()
            for _ in 0..<3 {
                let before = consumer.frameCount
                try capturer.startCapture()
                #expect(consumer.waitForFrames(2, after: before))
                capturer.stopCapture()
                #expect(!capturer.isCaptureStarted)
                #expect(driver.streamTiming(Self.path0) == nil, "still streaming after stopCapture")
            }
            #expect(driver.openDescriptorCount == 1)
            capturer.releaseCapture()
            #expect(driver.openDescriptorCount == 0)
            #expect(driver.liveMappingCount == 0)
        }
        #expect(consumer.failures.isEmpty)
        #expect(!consumer.sawOverlap)
    }

    @Test func controlCallsAreIdempotent() throws {
        let driver = SimulatedV4L2Driver([.simple(path: Self.path0, fps: 120)])
        let (capturer, consumer) = try started(driver)
        try capturer.initCapture()
        try capturer.startCapture()
        #expect(driver.openCount == 2, "one open to list cameras for .index(0), one to capture")
        #expect(consumer.waitForFrames(3))
        capturer.stopCapture()
        capturer.stopCapture()
        capturer.releaseCapture()
        capturer.releaseCapture()
        #expect(driver.openDescriptorCount == 0 && driver.liveMappingCount == 0)
        #expect(!consumer.sawOverlap)
    }

    @Test func droppingTheCapturerReleasesTheDevice() throws {
        let driver = SimulatedV4L2Driver([.simple(path: Self.path0)])
        do {
            let (capturer, consumer) = try started(driver)
            #expect(consumer.waitForFrames(1))
            _ = capturer
        }
        #expect(driver.openDescriptorCount == 0)
        #expect(driver.liveMappingCount == 0)
    }

    @Test func releaseFromInsideTheConsumerCallback() throws {
        let driver = SimulatedV4L2Driver([.simple(path: Self.path0, fps: 120)])
        let capturer = CameraCapturer(driver: driver)
        let consumer = RecordingConsumer { [weak capturer] n in
            if n == 3 { capturer?.releaseCapture() }
        }
        capturer.videoCaptureConsumer = consumer
        try capturer.initCapture()
        try capturer.startCapture()
        #expect(consumer.waitForFrames(3))
        // The capture thread releases the device right after the callback returns.
        #expect(driver.waitUntilReleased(timeout: .seconds(10)))
        #expect(!capturer.isCaptureStarted)
        #expect(consumer.frameCount == 3)
    }
}
