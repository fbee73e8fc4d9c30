import Testing
@testable import TokKitServer

/// The audio `mid` a routed force mute names at Janus (``RoutedMedia/audioMid(in:)``).
@Suite struct RoutedMediaModerationTests {
    @Test func theAudioMidOfAnAnswer() {
        let sdp = ["v=0", "o=- 1 2 IN IP4 0.0.0.0", "s=-", "t=0 0", "m=video 9 UDP/TLS/RTP/SAVPF 96", "a=mid:v",
                   "m=audio 9 UDP/TLS/RTP/SAVPF 111", "a=rtpmap:111 opus/48000/2", "a=mid:a1", ""]
        #expect(RoutedMedia.audioMid(in: sdp.joined(separator: "\r\n")) == "a1")  // "\r\n" is one Character
        #expect(RoutedMedia.audioMid(in: sdp.joined(separator: "\n")) == "a1")
    }

    @Test func noAudioMidWhenThereIsNoneOrItIsUnreasonable() {
        #expect(RoutedMedia.audioMid(in: "v=0\r\nm=video 9 RTP/AVP 96\r\na=mid:0\r\n") == nil)
        #expect(RoutedMedia.audioMid(in: "v=0\r\nm=audio 9 RTP/AVP 111\r\nm=video 9 RTP/AVP 96\r\na=mid:1\r\n") == nil)
        #expect(RoutedMedia.audioMid(in: "m=audio 9 RTP/AVP 111\r\na=mid:\r\n") == nil)
        #expect(RoutedMedia.audioMid(in: "m=audio 9 RTP/AVP 111\r\na=mid:" + String(repeating: "x", count: 65)) == nil)
        #expect(RoutedMedia.audioMid(in: "") == nil)
    }
}
