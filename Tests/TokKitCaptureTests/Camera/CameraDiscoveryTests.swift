import Testing
@testable import TokKitCapture

@Suite struct CameraDiscoveryTests {
    @Test func listsCaptureDevicesWithFormatsSizesAndIntervals() throws {
        var meta = SimulatedCamera.webcam(path: "/dev/video1")
        meta.isMetadataNode = true  // the UVC metadata node next to every webcam
        let driver = SimulatedV4L2Driver([
            .webcam(path: "/dev/video0", marker: 0), meta,
            .simple(path: "/dev/video10", fourCC: .nv12), .simple(path: "/dev/video2", fourCC: .yu12),
        ])
        let cameras = CameraCapturer.availableCameras(driver: driver)
        #expect(cameras.map(\.path) == ["/dev/video0", "/dev/video2", "/dev/video10"])
        let webcam = try #require(cameras.first)
        #expect(webcam.name == "Simulated Webcam 0")
        #expect(webcam.driver == "uvcvideo")
        #expect(webcam.busInfo == "usb-sim-0")
        #expect(webcam.unavailable == nil)
        #expect(webcam.formats == SimulatedCamera.webcam(path: "/dev/video0").formats)
        #expect(webcam.formats.map(\.pixelFormat) == [.yuy2, .mjpeg])
        #expect(cameras[1].formats.first?.pixelFormat == .i420)
        #expect(driver.openDescriptorCount == 0)
    }

    @Test func busyAndForbiddenDevicesStayListed() {
        var denied = SimulatedCamera.simple(path: "/dev/video1")
        denied.permissionDenied = true
        let driver = SimulatedV4L2Driver([.simple(path: "/dev/video0"), denied])
        driver.setHeldByAnotherProcess("/dev/video0", true)
        let cameras = CameraCapturer.availableCameras(driver: driver)
        #expect(cameras.map(\.unavailable) == [.deviceBusy("/dev/video0"), .permissionDenied("/dev/video1")])
        #expect(cameras.allSatisfy { $0.formats.isEmpty })
    }

    @Test func noDevicesIsAnEmptyList() {
        #expect(CameraCapturer.availableCameras(driver: SimulatedV4L2Driver()).isEmpty)
    }

    @Test func anUnpluggedCameraDisappears() {
        let driver = SimulatedV4L2Driver([.simple(path: "/dev/video0"), .simple(path: "/dev/video1")])
        driver.unplug("/dev/video0")
        #expect(CameraCapturer.availableCameras(driver: driver).map(\.path) == ["/dev/video1"])
    }
}
