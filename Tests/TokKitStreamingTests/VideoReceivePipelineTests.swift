import Testing
import TokKitICETestSupport
import TokKitMedia
import TokKitPeer
@testable import TokKitStreaming

@Suite("VideoReceivePipeline", .serialized) struct VideoReceivePipelineTests {
    @Test func disablingStopsDecodingAndReEnablingAsksForAKeyframe() async throws {
        let peers = try await LoopbackPeers.connect()
        defer { peers.close() }
        let sender = try VideoSendPipeline(settings: VideoSendPipelineTests.encoded,
                                           previewRenderer: VideoSendPipelineTests.Preview())
        defer { sender.close() }
        let renderer = CountingRenderer(width: 320, height: 240)
        let receiver = VideoReceivePipeline(peer: peers.subscriber, renderer: renderer)
        defer { receiver.close() }
        try sender.attach(peers.publisher)
        let start = MonotonicClock.now()
        try await VideoSendPipelineTests.publish(sender, 0..<5, start: start, renderers: [renderer])
        #expect(await eventually(within: .seconds(20)) { renderer.count == 5 })

        receiver.isEnabled = false
        try await VideoSendPipelineTests.publish(sender, 5..<10, start: start)
        #expect(await eventually(within: .seconds(20)) { receiver.statistics.framesReceived == 10 })
        #expect(renderer.count == 5 && receiver.statistics.framesDecoded == 5)

        let requests = receiver.statistics.keyframeRequests, keyframes = sender.statistics.keyframesEncoded
        let senderRequests = sender.statistics.keyframeRequests
        receiver.isEnabled = true
        #expect(receiver.statistics.keyframeRequests == requests + 1, "re-enabling must ask for a keyframe")
        // The request travels as a PLI: the publisher's next frame is a keyframe and decoding resumes with it.
        #expect(await eventually(within: .seconds(20)) { sender.statistics.keyframeRequests > senderRequests })
        try await VideoSendPipelineTests.publish(sender, 10..<15, start: start, renderers: [renderer])
        #expect(sender.statistics.keyframesEncoded == keyframes + 1)
        #expect(renderer.numbers == Array(0..<5) + Array(10..<15))
        #expect(receiver.statistics.decodeErrors == 0)
    }

    @Test func closeRemovesTheHandlerAndStopsTheThread() async throws {
        let peer = try PeerConnection()
        defer { peer.close() }
        let receiver = VideoReceivePipeline(peer: peer, renderer: nil)
        let name = receiver.threadName
        #expect(await eventually(within: .seconds(5)) { threadNames().contains(name) })
        receiver.close()
        receiver.close()
        #expect(receiver.state == .closed)
        #expect(await eventually(within: .seconds(5)) { !threadNames().contains(name) })
    }
}
