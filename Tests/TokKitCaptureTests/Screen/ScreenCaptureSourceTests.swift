import Testing
@testable import TokKitCapture

@Suite struct ScreenCaptureSourceTests {
    @Test func regionsOnTheScreenPass() throws {
        try ScreenCaptureSource.region(x: 0, y: 0, width: 320, height: 240).validate(screenWidth: 320, screenHeight: 240)
        try ScreenCaptureSource.region(x: 319, y: 239, width: 1, height: 1).validate(screenWidth: 320, screenHeight: 240)
        try ScreenCaptureSource.screen.validate(screenWidth: 320, screenHeight: 240)
        try ScreenCaptureSource.window(42).validate(screenWidth: 320, screenHeight: 240)
    }

    @Test(arguments: [
        (320, 0, 1, 1), (0, 240, 1, 1), (1, 0, 320, 1), (0, 0, 0, 1), (0, 0, 1, 0), (-1, 0, 1, 1),
        (Int.max, 0, Int.max, 1), (0, Int.min, 1, Int.max), (Int.min, Int.min, Int.min, Int.min),
    ])
    func regionsOffTheScreenThrowWithoutOverflow(region: (Int, Int, Int, Int)) {
        let (x, y, w, h) = region
        #expect(throws: VideoCaptureError.invalidRegion(x: x, y: y, width: w, height: h)) {
            try ScreenCaptureSource.region(x: x, y: y, width: w, height: h).validate(screenWidth: 320, screenHeight: 240)
        }
    }

    @Test func descriptions() {
        #expect(ScreenCaptureSource.region(x: 1, y: 2, width: 3, height: 4).description == "region 3x4+1+2")
        #expect(ScreenCaptureSource.window(0x2a00001).description == "window 0x2a00001")
    }
}
