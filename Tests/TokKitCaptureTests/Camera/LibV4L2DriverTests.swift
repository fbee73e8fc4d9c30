#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import TokKitCapture

/// The real, libv4l2-backed driver, on what every machine has: a directory of files that are not V4L2
/// devices, missing nodes, and /dev.
@Suite struct LibV4L2DriverTests {
    /// A fresh directory holding empty files with the given names; removed by `cleanup`.
    func makeDirectory(_ names: [String]) throws -> String {
        var template = Array("/tmp/tokkit-v4l2-XXXXXX".utf8CString)
        let dir = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
        for name in names {
            let fd = Glibc.open(dir + "/" + name, O_CREAT | O_WRONLY, 0o644)
            try #require(fd >= 0)
            Glibc.close(fd)
        }
        return dir
    }

    func cleanup(_ dir: String, _ names: [String]) {
        for name in names { unlink(dir + "/" + name) }
        rmdir(dir)
    }

    @Test func deviceNodesAreVideoNodesInNumericOrder() throws {
        let names = ["video10", "video2", "video0", "videox", "vbi0", "media0"]
        let dir = try makeDirectory(names)
        defer { cleanup(dir, names) }
        #expect(LibV4L2Driver(deviceDirectory: dir).deviceNodes() == [dir + "/video0", dir + "/video2", dir + "/video10"])
        #expect(LibV4L2Driver(deviceDirectory: dir + "/missing").deviceNodes().isEmpty)
    }

    @Test func missingNodeIsENOENT() {
        #expect(throws: V4L2Errno.noSuchFile) {
            try LibV4L2Driver().open("/dev/tokkit-no-such-video-node", nonBlocking: true)
        }
        #expect(throws: VideoCaptureError.noSuchDevice("/dev/tokkit-no-such-video-node")) {
            try CameraCapturer(camera: .path("/dev/tokkit-no-such-video-node")).initCapture()
        }
    }

    @Test func aFileThatIsNotAV4L2DeviceIsNoSuchDevice() throws {
        let dir = try makeDirectory(["video0"])
        defer { cleanup(dir, ["video0"]) }
        let driver = LibV4L2Driver(deviceDirectory: dir)
        // libv4l2 queries the capabilities while opening, and fails the open as the kernel fails the ioctl.
        #expect(throws: V4L2Errno.notTTY) { try driver.open(dir + "/video0", nonBlocking: true) }
        #expect(throws: VideoCaptureError.noSuchDevice(dir + "/video0")) {
            try CameraCapturer(camera: .path(dir + "/video0"), driver: driver).initCapture()
        }
        // Not a camera, so not listed.
        #expect(CameraCapturer.availableCameras(driver: driver).isEmpty)
    }

    @Test func noNodesMeansNoCamera() throws {
        let dir = try makeDirectory([])
        defer { cleanup(dir, []) }
        let driver = LibV4L2Driver(deviceDirectory: dir)
        #expect(CameraCapturer.availableCameras(driver: driver).isEmpty)
        #expect(throws: VideoCaptureError.noSuchDevice("no video devices")) {
            try CameraCapturer(driver: driver).initCapture()
        }
    }

    @Test func listingTheRealDevDirectoryIsConsistent() {
        // Whatever this machine has: every listed camera is a /dev/video node that was found as a node.
        let nodes = LibV4L2Driver().deviceNodes()
        let cameras = CameraCapturer.availableCameras()
        #expect(cameras.allSatisfy { nodes.contains($0.path) })
    }
}

