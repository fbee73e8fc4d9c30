import Foundation
import Synchronization
import Testing
import TokKitICETestSupport
import TokKitMedia
import TokKitPeer
import TokKitTesting
@testable import TokKitStreaming

@Suite("VideoReceivePipeline", .serialized) struct VideoReceivePipelineTests {
    @Test func disablingStopsDecodingAndReEnablingAsksForAKeyframe() async throws {
        let peers = try await LoopbackPeerPair.connect()
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

    /// Blocks the decode thread (bounded: 20 s at most per frame) while ``open`` is false, so the receive queue
    /// fills up; counts the frames it lets through.
    final class GatedRenderer: VideoRender {
        let inner = CountingRenderer(width: 320, height: 240)
        let open = Atomic<Bool>(true)

        func renderVideoFrame(_ frame: VideoFrame) {
            let deadline = ContinuousClock.now + .seconds(20)
            while !open.load(ordering: .acquiring), ContinuousClock.now < deadline { usleep(1_000) }
            inner.renderVideoFrame(frame)
        }
    }

    /// The Chromium stall (a 1.7 Mbps publisher: 4 frames decoded, then hundreds received and dropped): the
    /// queue overflowed, the keyframe answering the PLI arrived while it was still full and was dropped too, and
    /// every later frame was dropped waiting for a keyframe. Now the keyframe takes the place of the frames
    /// waiting in the queue (not of the one being decoded), and decoding goes on from it.
    @Test func aKeyframeFindingTheQueueFullReplacesTheFramesWaiting() async throws {
        let peers = try await LoopbackPeerPair.connect()
        defer { peers.close() }
        let sender = try VideoSendPipeline(settings: VideoSendPipelineTests.encoded,
                                           previewRenderer: VideoSendPipelineTests.Preview())
        defer { sender.close() }
        let renderer = GatedRenderer()
        let receiver = VideoReceivePipeline(peer: peers.subscriber, renderer: renderer)
        defer { receiver.close() }
        try sender.attach(peers.publisher)
        let start = MonotonicClock.now()
        try await VideoSendPipelineTests.publish(sender, 0..<3, start: start, renderers: [renderer.inner])

        // Blocked: frame 3 in the renderer, the queue full behind it, then a drop and a PLI; the keyframe
        // answering it finds the queue still full.
        renderer.open.store(false, ordering: .releasing)
        let requests = sender.statistics.keyframeRequests, keyframes = sender.statistics.keyframesEncoded
        var next = 3
        for _ in 0..<VideoReceivePipeline.queueCapacity + 10 where sender.statistics.keyframesEncoded == keyframes {
            try await VideoSendPipelineTests.publish(sender, next..<next + 1, start: start)
            next += 1
            _ = await eventually(within: .milliseconds(100)) { sender.statistics.keyframeRequests > requests }
        }
        #expect(sender.statistics.keyframesEncoded > keyframes, "no PLI reached the sender while the queue was full")
        #expect(await eventually(within: .seconds(5)) { receiver.statistics.framesReceived == next })
        #expect(receiver.statistics.framesDropped >= VideoReceivePipeline.queueCapacity, "\(receiver.statistics)")

        // Unblocked: frame 3, then the keyframe, not the deltas that waited before it.
        renderer.open.store(true, ordering: .releasing)
        #expect(await eventually(within: .seconds(5)) { renderer.inner.count >= 5 })
        let numbers = renderer.inner.numbers
        #expect(Array(numbers.prefix(4)) == [0, 1, 2, 3])
        if numbers.count >= 5 {
            #expect(numbers[4] >= 4 + VideoReceivePipeline.queueCapacity,
                    "the frames waiting were decoded instead of making room for the keyframe: \(numbers)")
        }
        // And the picture goes on from it.
        try await VideoSendPipelineTests.publish(sender, next..<next + 3, start: start, renderers: [renderer.inner])
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
