import FoundationEssentials
import Testing
import TokKitTesting

@testable import TokKit

@Suite struct PublisherTests {
    @Test func defaultsFollowTheSdk() {
        let p = Publisher()
        #expect(p.name == "")
        #expect(p.publishAudio && p.publishVideo)
        #expect(p.videoType == .camera)
        #expect(p.stream == nil && p.session == nil && p.videoCapture == nil && p.videoRender == nil)
    }

    @Test func propertiesChangeLocallyWhileUnpublished() {
        let p = Publisher(name: "n")
        p.publishAudio = false
        p.publishVideo = false
        p.videoType = .screen
        p.videoDimensions = VideoDimensions(width: 1280, height: 720)
        #expect(!p.publishAudio && !p.publishVideo && p.videoType == .screen)
        #expect(p.videoDimensions == VideoDimensions(width: 1280, height: 720))
    }

    @Test func aPublisherBelongsToOneSessionAtATime() throws {
        let p = Publisher(name: "n", publishVideo: false)
        let s1 = Session(apiKey: "k", sessionID: "s", serverURL: URL(string: "http://127.0.0.1:1")!)
        let s2 = Session(apiKey: "k", sessionID: "s", serverURL: URL(string: "http://127.0.0.1:1")!)
        let d = try p.attach(to: s1)
        #expect(d.name == "n" && d.hasAudio && !d.hasVideo)
        #expect(throws: SessionError.self) { try p.attach(to: s2) }
        #expect(p.detach(from: s2) == nil)  // not its session: no effect
        #expect(p.session === s1)
        p.detach(from: s1)
        #expect(p.session == nil)
        _ = try p.attach(to: s2)
    }

    /// The frame rate `publish` announces (issue 15): the capturer's, as the encoder runs it (1...60, 30 unknown).
    @Test func theAnnouncedFrameRateIsTheCapturersEncodeRate() {
        #expect(Publisher().announcedFrameRate() == nil, "audio only: none")
        #expect(Publisher(videoCapture: PatternCapturer(framesPerSecond: 15)).announcedFrameRate() == 15)
        #expect(Publisher(videoCapture: PatternCapturer(framesPerSecond: 30)).announcedFrameRate() == 30)
        #expect(Publisher(videoCapture: PatternCapturer(framesPerSecond: 29.97)).announcedFrameRate() == 30)
        #expect(Publisher(videoCapture: PatternCapturer(framesPerSecond: 240)).announcedFrameRate() == 60)
    }
}
