import Testing
@testable import TokKitCapture

@Suite struct CameraNegotiationTests {
    typealias Choice = CameraNegotiation.Choice

    func format(_ fourCC: FourCC, _ sizes: [(Int, Int, [CameraFrameInterval])], emulated: Bool = false) -> CameraFormat {
        CameraFormat(
            fourCC: fourCC, name: "\(fourCC)", isCompressed: fourCC == .mjpeg, isEmulated: emulated,
            sizes: sizes.map { CameraFrameSize(width: $0.0, height: $0.1, intervals: $0.2) })
    }

    func choose(_ formats: [CameraFormat], _ w: Int = 640, _ h: Int = 480, fps: Double = 30) -> Choice? {
        CameraNegotiation.choose(from: formats, for: CameraPreferences(width: w, height: h, framesPerSecond: fps))
    }

    @Test func prefersNV12ThenI420ThenYUYVThenMJPEG() {
        let all: [FourCC] = [.mjpeg, .yuyv, .yu12, .nv12]
        for n in (1...all.count).reversed() {
            let offered = all.prefix(n).map { format($0, [(640, 480, [.fps(30)])]) }
            #expect(choose(offered)?.fourCC == all[n - 1], "with \(offered.map(\.fourCC))")
        }
    }

    @Test func sizeNearestTheDesiredOne() {
        let f = format(.yuyv, [(320, 240, [.fps(30)]), (800, 600, [.fps(30)]), (1280, 720, [.fps(30)])])
        #expect(choose([f], 640, 480).map { [$0.width, $0.height] } == [800, 600])
        #expect(choose([f], 352, 288).map { [$0.width, $0.height] } == [320, 240])
        #expect(choose([f], 1920, 1080).map { [$0.width, $0.height] } == [1280, 720])
        // A tie goes to the larger size (downscaling beats upscaling).
        let tie = format(.yuyv, [(600, 480, [.fps(30)]), (680, 480, [.fps(30)])])
        #expect(choose([tie], 640, 480).map(\.width) == 680)
    }

    @Test func highestRateNotAboveTheDesiredOne() {
        let f = format(.yuyv, [(640, 480, [.fps(60), .fps(30), .fps(25), .fps(15)])])
        #expect(choose([f], fps: 30)?.interval == .fps(30))
        #expect(choose([f], fps: 29)?.interval == .fps(25))
        #expect(choose([f], fps: 100)?.interval == .fps(60))
        #expect(choose([f], fps: 15)?.interval == .fps(15))
        // Every rate above the desired one: the lowest.
        #expect(choose([f], fps: 10)?.interval == .fps(15))
    }

    @Test func uvcIntervalsOf100NanosecondsCountAsTheirRoundRate() {
        // 333333/10000000 s is 30.0003 fps: that is 30, not "above 30".
        let uvc30 = CameraFrameInterval(numerator: 333_333, denominator: 10_000_000)
        let uvc25 = CameraFrameInterval(numerator: 400_000, denominator: 10_000_000)
        let f = format(.yuyv, [(640, 480, [uvc30, uvc25])])
        #expect(choose([f], fps: 30)?.interval == uvc30)
    }

    @Test func sizeFirstThenRateThenFormat() {
        // A webcam: YUYV does 720p only at 10 fps, MJPEG at 30.
        let yuyv = format(.yuyv, [(640, 480, [.fps(30)]), (1280, 720, [.fps(10)])])
        let mjpeg = format(.mjpeg, [(640, 480, [.fps(30)]), (1280, 720, [.fps(30)])])
        #expect(choose([yuyv, mjpeg], 1280, 720, fps: 30) == Choice(fourCC: .mjpeg, width: 1280, height: 720, interval: .fps(30)))
        #expect(choose([yuyv, mjpeg], 640, 480, fps: 30) == Choice(fourCC: .yuyv, width: 640, height: 480, interval: .fps(30)))
        // Asking 720p at 10 fps, both do it: the preferred format wins.
        #expect(choose([yuyv, mjpeg], 1280, 720, fps: 10)?.fourCC == .yuyv)
    }

    @Test func emulatedAndUnknownFormatsAreNeverChosen() {
        let emulated = format(.yu12, [(640, 480, [.fps(30)])], emulated: true)
        let rgb = format(FourCC("RGB3"), [(640, 480, [.fps(30)])])
        #expect(choose([emulated, rgb]) == nil)
        let mjpeg = format(.mjpeg, [(640, 480, [.fps(30)])])
        #expect(choose([emulated, rgb, mjpeg])?.fourCC == .mjpeg)
    }

    @Test func formatWithoutListedSizesIsAskedAtTheDesiredSize() {
        let bare = format(.yuyv, [])
        #expect(choose([bare], 800, 600) == Choice(fourCC: .yuyv, width: 800, height: 600, interval: nil))
        // Any format with listed sizes beats it.
        #expect(choose([bare, format(.mjpeg, [(320, 240, [.fps(30)])])], 800, 600)?.fourCC == .mjpeg)
    }

    @Test func negotiatesWithTheDriverEndToEnd() throws {
        let path = "/dev/video0"
        let driver = SimulatedV4L2Driver([.webcam(path: path)])
        let cases: [(CameraPreferences, FourCC, Int, Int, CameraFrameInterval)] = [
            (.init(width: 1280, height: 720, framesPerSecond: 30), .mjpeg, 1280, 720, SimulatedCamera.uvc(333_333)),
            (.init(width: 640, height: 480, framesPerSecond: 30), .yuyv, 640, 480, SimulatedCamera.uvc(333_333)),
            (.init(width: 640, height: 480, framesPerSecond: 20), .yuyv, 640, 480, SimulatedCamera.uvc(666_666)),
            (.init(width: 300, height: 200, framesPerSecond: 30), .yuyv, 320, 240, SimulatedCamera.uvc(333_333)),
        ]
        for (prefs, fourCC, w, h, interval) in cases {
            let capturer = CameraCapturer(camera: .path(path), preferences: prefs, driver: driver)
            try capturer.initCapture()
            let set = try #require(driver.currentFormat(path))
            #expect(set.fourCC == fourCC && set.width == w && set.height == h && set.interval == interval, "for \(prefs)")
            let settings = capturer.captureSettings()
            #expect(settings.width == w && settings.height == h && settings.pixelFormat == prefs.outputFormat.pixelFormat)
            #expect(abs(settings.estimatedFramesPerSecond - interval.framesPerSecond) < 1e-9)
            capturer.releaseCapture()
        }
    }

    @Test func absurdPreferencesAreApproximatedNotTrapped() throws {
        let path = "/dev/video0"
        let driver = SimulatedV4L2Driver([.webcam(path: path)])
        let capturer = CameraCapturer(
            camera: .path(path), preferences: .init(width: -5, height: 0, framesPerSecond: -1), driver: driver)
        try capturer.initCapture()
        // Nearest to 0x0 is the smallest size; every rate is above -1, so the lowest.
        let set = try #require(driver.currentFormat(path))
        #expect(set.width == 320 && set.height == 240 && set.interval == SimulatedCamera.uvc(666_666))
        capturer.releaseCapture()
    }
}
