import Testing
import TokKitCapture

@Suite struct FourCCTests {
    @Test func packsLittleEndianLikeV4L2() {
        #expect(FourCC("YUYV").rawValue == 0x5659_5559)
        #expect(FourCC.mjpeg.description == "MJPG")
        #expect(FourCC(rawValue: 0x0132_3456).description == "V42?")
    }

    @Test func mapsToTokKitPixelFormats() {
        #expect(FourCC.nv12.pixelFormat == .nv12)
        #expect(FourCC.yu12.pixelFormat == .i420)
        #expect(FourCC.yuyv.pixelFormat == .yuy2)
        #expect(FourCC.mjpeg.pixelFormat == .mjpeg)
        #expect(FourCC.jpeg.pixelFormat == .mjpeg)
        #expect(FourCC("RGB3").pixelFormat == nil)
    }

    @Test func frameIntervalsInFramesPerSecond() {
        #expect(CameraFrameInterval.fps(30).framesPerSecond == 30)
        #expect(CameraFrameInterval(numerator: 333_333, denominator: 10_000_000).description == "30 fps")
        #expect(CameraFrameInterval(numerator: 1001, denominator: 30000).description == "29.97 fps")
        #expect(CameraFrameInterval(numerator: 0, denominator: 30).framesPerSecond == 0)
        #expect(CameraFrameInterval(numerator: 1, denominator: 0).duration == .zero)
        #expect(CameraFrameInterval.fps(25).duration == .milliseconds(40))
    }
}
