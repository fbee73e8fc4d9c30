import Testing
import TokKitMedia
@testable import TokKitStreaming

@Suite("VideoEncodeSettings") struct VideoEncodeSettingsTests {
    @Test func defaultsToAboutOneMegabitFor640x480() throws {
        let s = VideoEncodeSettings()
        #expect(s.bitrate == 1_000_000)
        try s.validate()
        #expect(!s.isScreenContent)
        #expect(VideoEncodeSettings(contentHint: .detail).isScreenContent)
        #expect(VideoEncodeSettings(width: 1280, height: 720).bitrate > 2_000_000)
    }

    @Test(arguments: [
        VideoEncodeSettings(width: 0, height: 480), VideoEncodeSettings(width: 641, height: 480),
        VideoEncodeSettings(width: 640, height: 480, framesPerSecond: 0),
        VideoEncodeSettings(width: 640, height: 480, bitrate: 5),
    ])
    func rejectsOutOfRangeValues(_ settings: VideoEncodeSettings) {
        #expect(throws: StreamingError.self) { try settings.validate() }
        #expect(throws: StreamingError.self) { _ = try VideoSendPipeline(settings: settings) }
    }
}
