import Testing

@testable import TokKit

@Suite struct SessionStreamTests {
    @Test func changesListEveryDifferenceInOrder() {
        let c = Connection(connectionID: "c", creationTime: .init(millisecondsSince1970: 1), data: "")
        let a = SessionStream(streamID: "s", connection: c, name: "n", hasAudio: true, hasVideo: true,
                       videoDimensions: VideoDimensions(width: 640, height: 480), videoType: .camera,
                       creationTime: .init(millisecondsSince1970: 1))
        var b = a
        #expect(a.changes(to: b).isEmpty)
        b.hasAudio = false
        b.hasVideo = false
        b.videoDimensions = VideoDimensions(width: 1280, height: 720)
        b.videoType = .screen
        #expect(a.changes(to: b) == [
            .hasAudio(false), .hasVideo(false), .videoDimensions(VideoDimensions(width: 1280, height: 720)),
            .videoType(.screen),
        ])
        #expect(a != b && a.streamID == b.streamID)
    }
}
