import Synchronization
import Testing
import TokKitICETestSupport
import TokKitMedia
import TokKitPeer
import TokKitRTP
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

    @Test func keepsAskingForAKeyframeWhileOnlyDeltaFramesArrive() async throws {
        let peers = try await LoopbackPeers.connect()
        defer { peers.close() }
        let plis = Atomic<Int>(0)
        peers.publisher.setFeedbackHandler(.video) { feedback in
            if case .pictureLoss = feedback { plis.add(1, ordering: .relaxed) }
        }
        let receiver = VideoReceivePipeline(peer: peers.subscriber, renderer: nil)
        defer { receiver.close() }
        // A key frame that libvpx rejects (its first partition claims more bytes than the frame has), then 44 delta
        // frames, 33 ms apart. The assembler passes them all (it is in sync after the key frame); the decode error
        // makes the pipeline skip to the next key frame and ask for one. None comes: it must ask again every 250 ms
        // (the key frame, or the request, may have been lost) instead of once and then waiting forever.
        let packetizer = try VP8Packetizer()
        let body = [UInt8](repeating: 0x42, count: 300)
        let key: [UInt8] = [0xF0, 0xFF, 0xFF, 0x9D, 0x01, 0x2A, 0x80, 0x02, 0xE0, 0x01] + body
        let delta: [UInt8] = [0xF1, 0xFF, 0xFF] + body
        for n in 0..<45 {
            _ = try (n == 0 ? key : delta).withUnsafeBytes { bytes in
                try packetizer.packetize(bytes) { (payload, marker) throws(PeerError) in
                    try peers.publisher.sendRTP(.video, payload: payload, timestamp: UInt32(n * 3000), marker: marker)
                }
            }
            try await Task.sleep(for: .milliseconds(33))
        }
        #expect(await eventually(within: .seconds(10)) { receiver.statistics.framesReceived == 45 },
                "frames received: \(receiver.statistics.framesReceived)")
        let stats = receiver.statistics
        #expect(stats.framesDecoded == 0 && stats.decodeErrors >= 1 && stats.framesDropped >= 40,
                "decoded \(stats.framesDecoded), errors \(stats.decodeErrors), dropped \(stats.framesDropped)")
        // 45 frames span 1.5 s or more: a request at the decode error, then one per 250 ms of waiting (the old
        // pipeline asked only at decode errors: once or twice here).
        #expect(stats.keyframeRequests >= 4, "keyframe requests: \(stats.keyframeRequests)")
        #expect(await eventually(within: .seconds(10)) { plis.load(ordering: .relaxed) == stats.keyframeRequests },
                "PLIs received \(plis.load(ordering: .relaxed)) of \(stats.keyframeRequests) sent")
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
