import Testing
import TokKitCapture

@Suite struct ScreenCaptureOptionsTests {
    @Test func defaults() {
        let o = ScreenCaptureOptions()
        #expect(o.framesPerSecond == 5)
        #expect(o.usesSharedMemory)
        #expect(o.display == nil)
        #expect(o.threadName == "tk-screen")
    }

    @Test(arguments: [(0, 0.1), (-3, 0.1), (1000, 60), (.nan, 5), (.infinity, 5), (12.5, 12.5)] as [(Double, Double)])
    func frameRateIsClamped(given: Double, expected: Double) {
        #expect(ScreenCaptureOptions(framesPerSecond: given).framesPerSecond == expected)
    }
}
