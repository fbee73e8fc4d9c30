import Synchronization
import Testing
import TokKitICETestSupport
import TokKitMedia
import TokKitPeer
import TokKitTesting
import TokKitRTP
@testable import TokKitStreaming

/// The receive pipeline's keyframe requests while it waits for a keyframe (see VideoReceivePipelineTests for the rest).
@Suite("VideoReceivePipeline keyframe retry", .serialized) struct VideoReceivePipelineKeyframeRetryTests {
    @Test func keepsAskingForAKeyframeWhileOnlyDeltaFramesArrive() async throws {
        let peers = try await LoopbackPeerPair.connect()
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
}
